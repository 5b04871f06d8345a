import type { RouteRegistrar } from '../http/route.js';
import { page, PageQuery } from '../contract/common.js';
import { PutSecretBody, SecretMeta, SecretNameParams } from '../contract/secrets.js';
import type { PoliciesService } from '../policies/ports.js';
import type { SecretsService } from './secrets-service.js';

/** Secrets by name: metadata only, never a value. */
export function secretsRoutes(r: RouteRegistrar, secrets: SecretsService, policies: Pick<PoliciesService, 'referencingSecret'>) {
  r.add({
    method: 'get',
    path: '/v1/secrets',
    area: 'box',
    tag: 'secrets',
    summary: 'List secrets (names and dates only), by name',
    query: PageQuery,
    handler: async ({ auth, query }) => {
      const { rows, total } = await secrets.list(auth.orgId, query.limit, query.offset);
      return page(rows, query, total);
    },
  });
  r.add({
    method: 'put',
    path: '/v1/secrets/:name',
    area: 'box',
    tag: 'secrets',
    summary: 'Create or replace a secret value',
    params: SecretNameParams,
    body: PutSecretBody,
    response: SecretMeta,
    handler: async ({ auth, params, body }) => await secrets.put(auth.orgId, params.name, body.value),
  });
  r.add({
    method: 'get',
    path: '/v1/secrets/:name',
    area: 'box',
    tag: 'secrets',
    summary: "A secret's metadata (never its value)",
    params: SecretNameParams,
    response: SecretMeta,
    handler: async ({ auth, params }) => await secrets.meta(auth.orgId, params.name),
  });
  r.add({
    method: 'delete',
    path: '/v1/secrets/:name',
    area: 'box',
    tag: 'secrets',
    summary: 'Delete a secret',
    params: SecretNameParams,
    response: SecretMeta,
    handler: async ({ auth, params }) => await secrets.delete(auth.orgId, params.name),
  });
  r.add({
    method: 'get',
    path: '/v1/secrets/:name/policies',
    area: 'box',
    tag: 'secrets',
    summary: 'HTTP policies whose header rewrites refer to this secret',
    params: SecretNameParams,
    handler: async ({ auth, params }) => ({ data: await policies.referencingSecret(auth.orgId, params.name) }),
  });
}
