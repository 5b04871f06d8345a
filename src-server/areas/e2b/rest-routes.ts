import { E2BNewSecret, E2BNewVolume, E2BSecretParams, E2BSecretsQuery, E2BSecretUpdate, E2BVolumeParams } from '@box/contract/e2b-rest';
import { Reply, type Method, type RouteRegistrar, type RouteSpec } from '../../platform/http/route.js';
import type { E2BSecrets } from './secrets.js';
import type { E2BVolumes } from './volumes.js';

const PREFIX = '/e2b/api';
const NO_CONTENT = new Reply(204, null);

/**
 * E2B's secrets and volumes (issue 33) on Box's: `/secrets` are Box secrets (the values stay
 * on the host; Box's egress proxy puts them into requests), `/volumes` are Box volumes.
 */
export function e2bRestRoutes(r: RouteRegistrar, deps: { secrets: E2BSecrets; volumes: E2BVolumes }): void {
  const { secrets, volumes } = deps;
  const on = <B, Q, P>(method: Method, path: string, summary: string, spec: Omit<RouteSpec<B, Q, P>, 'method' | 'path' | 'area' | 'tag' | 'summary'>) =>
    r.add({ method, path: `${PREFIX}${path}`, area: 'box', tag: 'e2b', summary, errors: 'e2b', ...spec });

  on('get', '/secrets', 'E2B: list secrets (Box secrets; metadata only, never a value)', {
    query: E2BSecretsQuery,
    handler: async ({ auth, query }) => {
      const { items, nextToken } = await secrets.list(auth.orgId, query.limit, query.nextToken);
      return new Reply(200, items, nextToken ? { 'X-Next-Token': nextToken } : {});
    },
  });
  on('post', '/secrets', 'E2B: create a secret (a Box secret, resolved only by the egress proxy)', {
    body: E2BNewSecret,
    handler: async ({ auth, body }) => new Reply(201, await secrets.create(auth.orgId, body)),
  });
  on('get', '/secrets/:secretID', "E2B: a secret's metadata, by id or name", {
    params: E2BSecretParams,
    handler: ({ auth, params: p }) => secrets.get(auth.orgId, p.secretID),
  });
  on('post', '/secrets/:secretID', "E2B: a secret's new version", {
    params: E2BSecretParams,
    body: E2BSecretUpdate,
    handler: ({ auth, params: p, body }) => secrets.update(auth.orgId, p.secretID, body),
  });
  on('delete', '/secrets/:secretID', 'E2B: delete a secret (and its Box secret)', {
    params: E2BSecretParams,
    handler: async ({ auth, params: p }) => (await secrets.delete(auth.orgId, p.secretID), NO_CONTENT),
  });

  on('get', '/volumes', 'E2B: list volumes (Box volumes)', { handler: ({ auth }) => volumes.list(auth.orgId) });
  on('post', '/volumes', 'E2B: create a volume (a Box volume; an existing name answers that volume)', {
    body: E2BNewVolume,
    handler: async ({ auth, body }) => new Reply(201, await volumes.create(auth.orgId, body.name)),
  });
  on('get', '/volumes/:volumeID', 'E2B: a volume and its token', {
    params: E2BVolumeParams,
    handler: ({ auth, params: p }) => volumes.get(auth.orgId, p.volumeID),
  });
  on('delete', '/volumes/:volumeID', 'E2B: delete a volume (409 while a sandbox mounts it)', {
    params: E2BVolumeParams,
    handler: async ({ auth, params: p }) => (await volumes.delete(auth.orgId, p.volumeID), NO_CONTENT),
  });
}
