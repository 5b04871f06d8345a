import type { RouteRegistrar } from '../app-context.js';
import { BoxIdParams, CheckpointBody, CheckpointIdParams, ForkBody, FromCheckpointBody, ListCheckpointsQuery } from '../contract/boxes.js';
import { boxFor } from './box-access.js';
import { authorize } from './transitions.js';

export function checkpointRoutes(r: RouteRegistrar) {
  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/checkpoint',
    area: 'box',
    tag: 'checkpoints',
    params: BoxIdParams,
    body: CheckpointBody,
    summary: 'Checkpoint memory, devices and disk',
    handler: ({ app, auth, req, params, body }) => app.services.checkpoints.checkpoint(boxFor(app, req, auth, params.box_id, 'checkpoint'), body),
  });

  r.add({
    method: 'get',
    path: '/v1/box-checkpoints',
    area: 'box',
    tag: 'checkpoints',
    query: ListCheckpointsQuery,
    summary: 'List checkpoints',
    handler: ({ app, auth, query }) => ({ data: app.services.checkpoints.list(auth.orgId, query) }),
  });

  r.add({
    method: 'get',
    path: '/v1/box-checkpoints/:checkpoint_id',
    area: 'box',
    tag: 'checkpoints',
    params: CheckpointIdParams,
    summary: 'Get a checkpoint',
    handler: ({ app, auth, params }) => {
      const { org_id: _o, ...cp } = app.services.checkpoints.get(auth.orgId, params.checkpoint_id);
      return cp;
    },
  });

  r.add({
    method: 'delete',
    path: '/v1/box-checkpoints/:checkpoint_id',
    area: 'box',
    tag: 'checkpoints',
    params: CheckpointIdParams,
    summary: 'Delete a checkpoint',
    handler: ({ app, auth, req, params }) => {
      const cps = app.services.checkpoints;
      const cp = cps.get(auth.orgId, params.checkpoint_id);
      const src = cps.sourceBox(cp);
      if (src && src.status !== 'terminated') boxFor(app, req, auth, src.box_id, 'delete_checkpoint');
      return cps.delete(cp);
    },
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/from_checkpoint',
    area: 'box',
    tag: 'checkpoints',
    body: FromCheckpointBody,
    summary: 'A new running box with the memory and disk of a checkpoint',
    handler: ({ app, auth, body }) => {
      const cps = app.services.checkpoints;
      const cp = cps.get(auth.orgId, body.checkpoint_id);
      const src = cps.sourceBox(cp);
      if (src) authorize(auth, src, 'from_checkpoint', undefined);
      return cps.fromCheckpoint(auth, cp, body.name);
    },
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/fork',
    area: 'box',
    tag: 'checkpoints',
    params: BoxIdParams,
    body: ForkBody,
    summary: 'Checkpoint + from_checkpoint in one call; a paused or sleeping box is not woken',
    handler: ({ app, auth, req, params, body }) => app.services.checkpoints.fork(auth, boxFor(app, req, auth, params.box_id, 'fork'), body.name, body.count),
  });

  r.add({
    method: 'get',
    path: '/v1/box-lineage',
    area: 'box',
    tag: 'checkpoints',
    summary: 'Which box and checkpoint each box was made from (for the fork tree)',
    handler: ({ app, auth }) => ({ data: app.services.checkpoints.lineage(auth.orgId) }),
  });
}
