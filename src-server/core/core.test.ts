import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, storedBytes, type TestService } from '../test-support/harness.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

describe('authentication', () => {
  it('401 invalid_api_key without or with a wrong key', async () => {
    const none = await fetch(`${svc.url}/v1/whoami`);
    expect(none.status).toBe(401);
    expect(await errorOf(none)).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key', param: null });
    const wrong = await svc.api('/v1/whoami', { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect((await errorOf(wrong)).code).toBe('invalid_api_key');
  });

  it('whoami answers for an organization key, also via x-api-key', async () => {
    const res = await svc.api('/v1/whoami');
    expect(res.status).toBe(200);
    const me = await res.json();
    expect(me).toMatchObject({ key_scope: 'organization', user_id: null, org_name: 'Local' });
    expect(me.org_id).toMatch(/^org_/);
    const viaHeader = await fetch(`${svc.url}/v1/whoami`, { headers: { 'x-api-key': svc.key } });
    expect((await viaHeader.json()).key_id).toBe(me.key_id);
    const keys = await (await svc.api('/v1/api-keys')).json();
    expect(keys.data.find((k: { id: string }) => k.id === me.key_id).last_used_at).not.toBeNull();
    expect((await (await svc.api('/v1/status')).json()).data_dir).toBe(svc.dataDir);
  });

  it('a user-scoped key gets 403 on box operations but may call whoami', async () => {
    const created = await (await svc.api('/v1/api-keys', { method: 'POST', json: { name: 'dev', scope: 'user' } })).json();
    expect(created.secret).toMatch(/^bxk_/);
    const headers = { authorization: `Bearer ${created.secret}` };
    const who = await svc.api('/v1/whoami', { headers });
    expect((await who.json()).key_scope).toBe('user');
    const boxOp = await svc.api('/v1/api-keys', { headers });
    expect(boxOp.status).toBe(403);
    expect(await errorOf(boxOp)).toMatchObject({ type: 'permission_error', code: null });
  });

  it('keys are stored hashed: the secret is not in the database file', async () => {
    const created = await (await svc.api('/v1/api-keys', { method: 'POST', json: { name: 'hashcheck', scope: 'organization' } })).json();
    const bytes = await storedBytes(svc);
    expect(bytes.includes(Buffer.from(created.secret))).toBe(false);
    expect(bytes.includes(Buffer.from(created.id))).toBe(true);
  });

  it('402 credits_exhausted with billing_url at zero credits; organization stays reachable', async () => {
    await svc.api('/v1/organization', { method: 'PATCH', json: { credits_usd_nanos: 0 } });
    const res = await svc.api('/v1/api-keys');
    expect(res.status).toBe(402);
    const err = await errorOf(res);
    expect(err).toMatchObject({ type: 'billing_error', code: 'credits_exhausted' });
    expect((err as unknown as { billing_url: string }).billing_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const org = await svc.api('/v1/organization', { method: 'PATCH', json: { credits_usd_nanos: 5_000_000_000 } });
    expect((await org.json()).credits_usd_nanos).toBe(5_000_000_000);
    expect((await svc.api('/v1/api-keys')).status).toBe(200);
  });
});

describe('errors', () => {
  it('unknown route → 404, wrong method → 405 with Allow', async () => {
    const unknown = await svc.api('/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(await errorOf(unknown)).toMatchObject({ type: 'not_found_error', code: 'unknown_route' });
    const wrong = await svc.api('/v1/whoami', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expect((await errorOf(wrong)).type).toBe('invalid_request_error');
  });

  it('malformed JSON → 400 invalid_json; body too large → 413 invalid_request_error', async () => {
    const bad = await svc.api('/v1/api-keys', { method: 'POST', body: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
    const big = await svc.api('/v1/api-keys', { method: 'POST', json: { name: 'x'.repeat(2 * 1024 * 1024), scope: 'user' } });
    expect(big.status).toBe(413);
    expect(await errorOf(big)).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
  });

  it('validation names the field, including unknown fields', async () => {
    const missing = await svc.api('/v1/api-keys', { method: 'POST', json: { name: 'a' } });
    expect(await errorOf(missing)).toMatchObject({ param: 'scope', type: 'invalid_request_error' });
    const extra = await svc.api('/v1/api-keys', { method: 'POST', json: { name: 'a', scope: 'user', colour: 'red' } });
    const e = await errorOf(extra);
    expect(e.param).toBe('colour');
    expect(e.message).toContain('colour');
    const q = await svc.api('/v1/audit-log?limit=0');
    expect(await errorOf(q)).toMatchObject({ param: 'limit' });
    const q2 = await svc.api('/v1/audit-log?offset=100001');
    expect(await errorOf(q2)).toMatchObject({ param: 'offset' });
  });
});

describe('local safety', () => {
  it('refuses a non-loopback Host (DNS rebinding)', async () => {
    const http = await import('node:http');
    const status = await new Promise<number>((resolve) => {
      const u = new URL(svc.url);
      http.get({ host: u.hostname, port: u.port, path: '/v1/whoami', headers: { host: 'evil.example:80', authorization: `Bearer ${svc.key}` } }, (res) =>
        resolve(res.statusCode!),
      );
    });
    expect(status).toBe(403);
  });

  it('refuses cross-origin browser requests and preflights', async () => {
    const res = await svc.api('/v1/whoami', { headers: { origin: 'http://evil.example' } });
    expect(res.status).toBe(403);
    expect((await errorOf(res)).code).toBe('cross_origin_refused');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const pre = await svc.api('/v1/whoami', { method: 'OPTIONS', headers: { origin: svc.url } });
    expect(pre.status).toBe(403);
    const same = await svc.api('/v1/whoami', { headers: { origin: svc.url } });
    expect(same.status).toBe(200);
  });

  it('listens on loopback only', () => {
    expect(svc.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
  });
});

describe('apps, audit, openapi', () => {
  it('finds or mints an app by name', async () => {
    const none = await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'web' } });
    expect(none.status).toBe(404);
    const a = await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'web', mint_if_missing: true } })).json();
    const b = await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'web', mint_if_missing: true } })).json();
    expect(a.id).toMatch(/^app_[0-9a-f-]{36}$/);
    expect(b.id).toBe(a.id);
    const list = await (await svc.api('/v1/apps')).json();
    expect(list.data.find((x: { app_id: string }) => x.app_id === a.id)).toMatchObject({ app_name: 'web', box_count: 0 });
  });

  it('records key creation in the audit log', async () => {
    const log = await (await svc.api('/v1/audit-log?limit=100')).json();
    expect(log.data.some((e: { action: string }) => e.action === 'api_key.create')).toBe(true);
    expect(log).toHaveProperty('has_more');
  });

  it('serves an OpenAPI document without a key', async () => {
    const doc = await (await fetch(`${svc.url}/v1/openapi.json`)).json();
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.paths['/v1/api-keys'].post.requestBody).toBeDefined();
    expect(doc.info.version).toBe('2026-10-04');
  });
});
