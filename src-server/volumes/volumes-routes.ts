import type { RouteRegistrar } from '../http/route.js';
import { page, PageQuery } from '../contract/common.js';
import { CreateVolumeBody, Volume, VolumeIdParams } from '../contract/volumes.js';
import type { Volumes } from './volumes-service.js';

/** Volume records: create (find-or-create by name), list, get, delete. */
export function volumeRoutes(r: RouteRegistrar, vols: Volumes, createDelayMs: number) {
  r.add({
    method: 'post',
    path: '/v1/box-volumes',
    area: 'box',
    tag: 'volumes',
    summary: 'Create a volume, or return the live one with that name',
    body: CreateVolumeBody,
    response: Volume,
    handler: async ({ auth, body }) => {
      if (createDelayMs > 0) await new Promise((res) => setTimeout(res, createDelayMs)); // tests: hold the idempotency claim
      return await vols.findOrCreate(auth.orgId, body.name);
    },
  });

  r.add({
    method: 'get',
    path: '/v1/box-volumes',
    area: 'box',
    tag: 'volumes',
    summary: 'List live volumes, oldest first',
    query: PageQuery,
    handler: async ({ auth, query }) => {
      const { rows, total } = await vols.list(auth.orgId, query.limit, query.offset);
      return page(rows, query, total);
    },
  });

  r.add({
    method: 'get',
    path: '/v1/box-volumes/:volume_id',
    area: 'box',
    tag: 'volumes',
    summary: 'Get a volume (also once deleted)',
    params: VolumeIdParams,
    response: Volume,
    handler: async ({ auth, params }) => {
      const v = await vols.get(auth.orgId, params.volume_id);
      if (!v) return await vols.ready(auth.orgId, params.volume_id); // throws the 404
      return v;
    },
  });

  r.add({
    method: 'delete',
    path: '/v1/box-volumes/:volume_id',
    area: 'box',
    tag: 'volumes',
    summary: 'Delete a volume and its files (409 while a live box mounts it)',
    params: VolumeIdParams,
    response: Volume,
    handler: async ({ auth, params }) => await vols.delete(auth.orgId, params.volume_id),
  });
}
