import type { RouteRegistrar } from '../http/route.js';
import { BoxIdParams } from '../contract/boxes.js';
import { BoxDeletePathQuery, BoxMkdirBody, BoxMovePathBody, RestoreBody } from '../contract/box-ops.js';
import type { BoxAccess } from './box-access.js';
import type { BoxFileOps } from './box-file-ops.js';
import type { CheckpointRestore } from './lifecycle/checkpoint-restore.js';

/** Ours, beyond the spec (issue 29): restore in place, and file operations inside a box. */
export function boxOpsRoutes(r: RouteRegistrar, s: { restore: CheckpointRestore; fileOps: BoxFileOps; access: BoxAccess }) {
  const { access } = s;
  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/restore',
    area: 'box',
    tag: 'checkpoints',
    params: BoxIdParams,
    body: RestoreBody,
    summary:
      'Beyond the spec: restore the box in place to one of its checkpoints (disk and memory); it runs from there, and what it holds now is lost unless checkpointed first',
    handler: async ({ auth, req, params, body }) => s.restore.restore(await access.boxFor(req, auth, params.box_id, 'checkpoint'), body.checkpoint_id),
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/directories',
    area: 'box',
    tag: 'files',
    params: BoxIdParams,
    body: BoxMkdirBody,
    summary: 'Beyond the spec: create a folder in the box (and missing parents); 409 if something is already there',
    handler: async ({ auth, req, params, body }) => s.fileOps.mkdir(await access.boxFor(req, auth, params.box_id, 'files'), body.path),
  });

  r.add({
    method: 'delete',
    path: '/v1/boxes/:box_id/paths',
    area: 'box',
    tag: 'files',
    params: BoxIdParams,
    query: BoxDeletePathQuery,
    summary: 'Beyond the spec: delete a file, a link (not its target) or a folder in the box (non-empty only with recursive=true)',
    handler: async ({ auth, req, params, query }) => {
      await s.fileOps.remove(await access.boxFor(req, auth, params.box_id, 'files'), query.path, query.recursive === 'true');
      return { path: query.path, deleted: true as const };
    },
  });

  r.add({
    method: 'post',
    path: '/v1/boxes/:box_id/paths/move',
    area: 'box',
    tag: 'files',
    params: BoxIdParams,
    body: BoxMovePathBody,
    summary: 'Beyond the spec: rename or move a path inside the box; 409 if the destination exists',
    handler: async ({ auth, req, params, body }) => s.fileOps.move(await access.boxFor(req, auth, params.box_id, 'files'), body.from, body.to),
  });
}
