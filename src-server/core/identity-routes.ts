import { z } from 'zod';
import type { AppContext, RouteRegistrar } from '../app-context.js';
import { idSchema, PageQuery, page } from '../contract/common.js';
import { ApiKey, AuditEntry, CreateApiKeyBody, Organization, PatchOrganizationBody, Whoami } from '../contract/identity.js';
import type { ApiKeyRow } from '../db/keys-repo.js';
import { conflict, notFound } from '../http/errors.js';

const publicKey = (k: ApiKeyRow): ApiKey => ({
  id: k.id,
  name: k.name,
  scope: k.scope,
  user_id: k.user_id,
  prefix: k.prefix,
  created_at: k.created_at,
  last_used_at: k.last_used_at,
});

export function identityRoutes(r: RouteRegistrar) {
  r.add({
    method: 'get',
    path: '/v1/whoami',
    area: 'common',
    tag: 'identity',
    auth: 'any',
    billingExempt: true,
    summary: 'Who the API key belongs to',
    response: Whoami,
    handler: ({ auth, app }) => ({
      org_id: auth.orgId,
      org_name: app.repos.orgs.get(auth.orgId)!.name,
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
    handler: ({ auth, app }) => ({ data: app.repos.keys.list(auth.orgId).map(publicKey) }),
  });

  r.add({
    method: 'post',
    path: '/v1/api-keys',
    area: 'box',
    tag: 'identity',
    summary: 'Create an API key (the secret is shown once)',
    body: CreateApiKeyBody,
    handler: ({ auth, app, body }) => {
      const { row, secret } = app.repos.keys.create(auth.orgId, body.name, body.scope);
      app.repos.audit.add({ org_id: auth.orgId, key_id: auth.key.id, action: 'api_key.create', target: row.id, reason: null, details: { scope: row.scope } });
      return { ...publicKey(row), secret };
    },
  });

  r.add({
    method: 'delete',
    path: '/v1/api-keys/:key_id',
    area: 'box',
    tag: 'identity',
    summary: 'Revoke an API key',
    params: z.object({ key_id: idSchema('apiKey', 'key_id') }),
    handler: ({ auth, app, params }) => {
      const key = app.repos.keys.get(params.key_id);
      if (!key || key.org_id !== auth.orgId || key.revoked_at) throw notFound(`No API key ${params.key_id}.`, null, 'key_id');
      if (key.scope === 'organization' && app.repos.keys.countLiveOrgKeys(auth.orgId) <= 1) {
        throw conflict('This is the last organization-scoped key; create another before revoking it.');
      }
      app.repos.keys.revoke(key.id);
      app.repos.audit.add({ org_id: auth.orgId, key_id: auth.key.id, action: 'api_key.revoke', target: key.id, reason: null, details: null });
      return publicKey({ ...key, revoked_at: new Date().toISOString() });
    },
  });

  const orgBody = (orgId: string, app: AppContext): Organization => {
    app.services.usage.flushTokens(); // credits include usage still batched in memory
    const o = app.repos.orgs.get(orgId)!;
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
    handler: ({ auth, app, body }) => {
      app.db.transaction(() => {
        if (body.credits_usd_nanos !== undefined) app.repos.orgs.setCredits(auth.orgId, body.credits_usd_nanos);
        if (body.name !== undefined) app.repos.orgs.rename(auth.orgId, body.name);
        app.repos.audit.add({ org_id: auth.orgId, key_id: auth.key.id, action: 'organization.update', target: auth.orgId, reason: null, details: body });
      })();
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
    handler: ({ auth, app, query }) => {
      const { rows, total } = app.repos.audit.page(auth.orgId, query.limit, query.offset);
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
      ...(auth.key.scope === 'organization' ? { data_dir: app.config.dataDir } : {}),
      ...Object.assign({}, ...app.statusProviders.map((p) => p())),
    }),
  });
}

const SERVICE_VERSION = '0.1.0';
export const API_VERSION = '2026-10-04';
