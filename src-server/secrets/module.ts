import type { AppBase, Area, RouteRegistrar } from '../app-context.js';
import { page, PageQuery } from '../contract/common.js';
import { PutSecretBody, SecretMeta, SecretNameParams } from '../contract/secrets.js';
import { notFound } from '../core/errors.js';
import type { PoliciesService } from '../policies/service.js';
import { CryptoBox } from '../util/crypto-box.js';
import { SecretsRepo } from './secrets-repo.js';

export interface SecretsService {
  /** The plaintext, for host-side use only (the egress proxy's header rewrites): values never enter a box. */
  resolve(orgId: string, name: string): string | undefined;
}

const aad = (orgId: string, name: string) => `${orgId}\0${name}`;

/** Organization secrets, encrypted at rest; the API only ever shows their metadata. */
export function secretsArea(app: AppBase, deps: { policies: Pick<PoliciesService, 'referencingSecret'> }) {
  const repo = new SecretsRepo(app.db);
  let cipher: CryptoBox | undefined;
  const c = () => (cipher ??= CryptoBox.forDataDir(app.config.dataDir));
  const secrets: SecretsService = {
    resolve: (orgId, name) => {
      const blob = repo.sealed(orgId, name);
      return blob && c().openString(blob, aad(orgId, name));
    },
  };
  const routes = (r: RouteRegistrar) => {
    const mustMeta = (orgId: string, name: string) => {
      const m = repo.meta(orgId, name);
      if (!m) throw notFound(`No secret named ${name}.`, null, 'name');
      return m;
    };

    r.add({
      method: 'get',
      path: '/v1/secrets',
      area: 'box',
      tag: 'secrets',
      summary: 'List secrets (names and dates only), by name',
      query: PageQuery,
      handler: ({ auth, query }) => {
        const { rows, total } = repo.list(auth.orgId, query.limit, query.offset);
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
      handler: ({ auth, params, body }) => {
        const prior = repo.meta(auth.orgId, params.name);
        const at = new Date().toISOString();
        repo.upsert(auth.orgId, params.name, c().seal(body.value, aad(auth.orgId, params.name)), at);
        return { name: params.name, created_at: prior?.created_at ?? at, updated_at: at };
      },
    });
    r.add({
      method: 'get',
      path: '/v1/secrets/:name',
      area: 'box',
      tag: 'secrets',
      summary: "A secret's metadata (never its value)",
      params: SecretNameParams,
      response: SecretMeta,
      handler: ({ auth, params }) => mustMeta(auth.orgId, params.name),
    });
    r.add({
      method: 'delete',
      path: '/v1/secrets/:name',
      area: 'box',
      tag: 'secrets',
      summary: 'Delete a secret',
      params: SecretNameParams,
      response: SecretMeta,
      handler: ({ auth, params }) => {
        const m = mustMeta(auth.orgId, params.name);
        repo.delete(auth.orgId, params.name);
        return m;
      },
    });
    r.add({
      method: 'get',
      path: '/v1/secrets/:name/policies',
      area: 'box',
      tag: 'secrets',
      summary: 'HTTP policies whose header rewrites refer to this secret',
      params: SecretNameParams,
      handler: ({ auth, params }) => ({ data: deps.policies.referencingSecret(auth.orgId, params.name) }),
    });
  };
  const area: Area = { name: 'secrets', routes };
  return { secrets, area };
}
