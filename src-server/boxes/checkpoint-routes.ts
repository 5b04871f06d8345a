import type { RouteRegistrar } from '../http/route.js';
import { BoxIdParams, CheckpointBody, CheckpointIdParams, ForkBody, FromCheckpointBody, ListCheckpointsQuery } from '../contract/boxes.js';
import type { BoxAccess } from './box-access.js';
import { authorize } from './transitions.js';
import type { CheckpointService } from './lifecycle/checkpoint-service.js';

export function checkpointRoutes(r: RouteRegistrar, s: { checkpoints: CheckpointService; access: BoxAccess }) {
  const { access } = s;
  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/checkpoint',
    area: 'box',
    tag: 'checkpoints',
    params: BoxIdParams,
    body: CheckpointBody,
    summary: 'Checkpoint memory, devices and disk',
    handler: async ({ auth, req, params, body }) => s.checkpoints.checkpoint(await access.boxFor(req, auth, params.box_id, 'checkpoint'), body),
  });

  r.add({
    method: 'get',
    path: '/v1/box-checkpoints',
    area: 'box',
    tag: 'checkpoints',
    query: ListCheckpointsQuery,
    summary: 'List checkpoints',
    handler: async ({ auth, query }) => ({ data: await s.checkpoints.list(auth.orgId, query) }),
  });

  r.add({
    method: 'get',
    path: '/v1/box-checkpoints/:checkpoint_id',
    area: 'box',
    tag: 'checkpoints',
    params: CheckpointIdParams,
    summary: 'Get a checkpoint',
    handler: async ({ auth, params }) => {
      const { org_id: _o, ...cp } = await s.checkpoints.get(auth.orgId, params.checkpoint_id);
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
    handler: async ({ auth, req, params }) => {
      const cps = s.checkpoints;
      const cp = await cps.get(auth.orgId, params.checkpoint_id);
      const src = await cps.sourceBox(cp);
      if (src && src.status !== 'terminated') await access.boxFor(req, auth, src.box_id, 'delete_checkpoint');
      return await cps.delete(cp);
    },
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/from_checkpoint',
    area: 'box',
    tag: 'checkpoints',
    body: FromCheckpointBody,
    summary: 'A new running box with the memory and disk of a checkpoint',
    handler: async ({ auth, body }) => {
      const cps = s.checkpoints;
      const cp = await cps.get(auth.orgId, body.checkpoint_id);
      const src = await cps.sourceBox(cp);
      if (src) authorize(auth, src, 'from_checkpoint', undefined);
      return cps.fromCheckpoint(auth, cp, body.name).then((made) => made.box);
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
    handler: async ({ auth, req, params, body }) => {
      const forked = await s.checkpoints.fork(auth, await access.boxFor(req, auth, params.box_id, 'fork'), body.name, body.count);
      return { checkpoint_id: forked.checkpoint_id, boxes: forked.boxes.map((made) => made.box) };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/box-lineage',
    area: 'box',
    tag: 'checkpoints',
    summary: 'Which box and checkpoint each box was made from (for the fork tree)',
    handler: async ({ auth }) => ({ data: await s.checkpoints.lineage(auth.orgId) }),
  });
}
