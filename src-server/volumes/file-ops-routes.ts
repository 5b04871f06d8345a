import type { RouteRegistrar } from '../http/route.js';
import { DeletedPath, DeletePathQuery, MakeDirectoryBody, MovePathBody } from '../contract/volume-ops.js';
import { VolumeEntry, VolumeIdParams } from '../contract/volumes.js';
import { makeDirectory, movePath, removePath } from './file-ops.js';
import type { Volumes } from './volumes-service.js';
import { volumeSegments } from './volume-path.js';

/** New folder, delete, rename on a volume without any box (UI file browser, `box volumes mkdir|rm-path|mv`). */
export function fileOpsRoutes(r: RouteRegistrar, vols: Volumes) {
  r.add({
    method: 'post',
    path: '/v1/box-volumes/:volume_id/directories',
    area: 'box',
    tag: 'volumes',
    summary: 'Create a folder (and missing parents); 409 if something is already there',
    params: VolumeIdParams,
    body: MakeDirectoryBody,
    response: VolumeEntry,
    handler: async ({ auth, params, body }) => makeDirectory(await vols.root(auth.orgId, params.volume_id), volumeSegments(body.path)),
  });
  r.add({
    method: 'delete',
    path: '/v1/box-volumes/:volume_id/paths',
    area: 'box',
    tag: 'volumes',
    summary: 'Delete a file, a link (not its target) or a folder (non-empty only with recursive=true)',
    params: VolumeIdParams,
    query: DeletePathQuery,
    response: DeletedPath,
    handler: async ({ auth, params, query }) => {
      await removePath(await vols.root(auth.orgId, params.volume_id), volumeSegments(query.path), query.recursive === 'true');
      return { path: query.path, deleted: true as const };
    },
  });
  r.add({
    method: 'post',
    path: '/v1/box-volumes/:volume_id/paths/move',
    area: 'box',
    tag: 'volumes',
    summary: 'Rename or move a path within the volume; 409 if the destination exists',
    params: VolumeIdParams,
    body: MovePathBody,
    response: VolumeEntry,
    handler: async ({ auth, params, body }) =>
      movePath(await vols.root(auth.orgId, params.volume_id), volumeSegments(body.from, 'from'), volumeSegments(body.to, 'to')),
  });
}
