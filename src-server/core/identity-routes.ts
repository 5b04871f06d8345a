import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { RouteApp } from '../app-context.js';
import type { RouteRegistrar } from '../http/route.js';
import { idSchema, PageQuery, page } from '../contract/common.js';
import { AuditEntry, CreateApiKeyBody, Organization, PatchOrganizationBody, Whoami } from '../contract/identity.js';
import type { AuditLog } from './audit-log.js';
import type { KeysService } from './keys-service.js';
import type { OrganizationService } from './organization-service.js';

/** What the identity routes use; usage is built after core (wiring.ts hands it to the core area's routes). */
interface IdentityDeps {
  keys: KeysService;
  organization: OrganizationService;
  audit: AuditLog;
  usage: { flushTokens(): Promise<void> };
}

export function identityRoutes(r: RouteRegistrar, s: IdentityDeps) {
  r.add({
    method: 'get',
    path: '/v1/whoami',
    area: 'common',
    tag: 'identity',
    auth: 'any',
    billingExempt: true,
    summary: 'Who the API key belongs to',
    response: Whoami,
    handler: async ({ auth }) => ({
      org_id: auth.orgId,
      org_name: (await s.organization.get(auth.orgId)).name,
      key_id: auth.key.id,
      key_scope: auth.key.scope,
      user_id: auth.key.user_id,
    }),
  });

  r.add({
    method: 'get',
    path: '/v1/api-keys',
    area: 'box',
    tag: 'identity',
    summary: 'List API keys',
    handler: async ({ auth }) => ({ data: await s.keys.list(auth.orgId) }),
  });

  r.add({
    method: 'post',
    path: '/v1/api-keys',
    area: 'box',
    tag: 'identity',
    summary: 'Create an API key (the secret is shown once)',
    body: CreateApiKeyBody,
    handler: async ({ auth, body }) => await s.keys.create(auth, body),
  });

  r.add({
    method: 'delete',
    path: '/v1/api-keys/:key_id',
    area: 'box',
    tag: 'identity',
    summary: 'Revoke an API key',
    params: z.object({ key_id: idSchema('apiKey', 'key_id') }),
    handler: async ({ auth, params }) => await s.keys.revoke(auth, params.key_id),
  });

  const orgBody = async (orgId: string, app: RouteApp): Promise<Organization> => {
    await s.usage.flushTokens(); // credits include usage still batched in memory
    const o = await s.organization.get(orgId);
    return { org_id: o.id, name: o.name, credits_usd_nanos: o.credits_usd_nanos, billing_url: `${app.baseUrl()}/#/settings/billing` };
  };

  r.add({
    method: 'get',
    path: '/v1/organization',
    area: 'box',
    tag: 'identity',
    billingExempt: true,
    summary: 'The organization and its credits',
    response: Organization,
    handler: ({ auth, app }) => orgBody(auth.orgId, app),
  });

  r.add({
    method: 'patch',
    path: '/v1/organization',
    area: 'box',
    tag: 'identity',
    billingExempt: true,
    summary: 'Rename the organization or set its credits',
    body: PatchOrganizationBody,
    response: Organization,
    handler: async ({ auth, app, body }) => {
      await s.organization.update(auth, body);
      return orgBody(auth.orgId, app);
    },
  });

  r.add({
    method: 'get',
    path: '/v1/audit-log',
    area: 'box',
    tag: 'identity',
    summary: 'The organization audit log, newest first',
    query: PageQuery,
    handler: async ({ auth, query }) => {
      const { rows, total } = await s.audit.page(auth.orgId, query.limit, query.offset);
      return page(
        rows.map((e) => AuditEntry.parse(e)),
        query,
        total,
      );
    },
  });

  r.add({
    method: 'get',
    path: '/v1/status',
    area: 'common',
    tag: 'identity',
    auth: 'any',
    billingExempt: true,
    summary: 'Service status: version, accelerator, engines',
    // The host data dir is for the machine's owner (organization keys), not for user-scoped keys.
    handler: ({ app, auth }) => ({
      version: SERVICE_VERSION,
      api_version: API_VERSION,
      ...(auth.key.scope === 'organization' ? { data_dir: app.config.dataDir, ...(CLI ? { cli: CLI } : {}) } : {}),
      ...Object.assign({}, ...app.statusProviders.map((p) => p())),
    }),
  });
}

const SERVICE_VERSION = '0.1.0';

/** This install's `box` CLI (bin/box.mjs of the checkout) and a Node.js to run it: the service's own, unless that is Electron. */
const CLI = (() => {
  const script = fileURLToPath(new URL('../../bin/box.mjs', import.meta.url));
  if (!fs.existsSync(script)) return undefined;
  return { node: process.versions.electron ? 'node' : process.execPath, script };
})();
export const API_VERSION = '2026-10-04';
