import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../test-support/harness.js';
import { FakeRuntime } from '../test-support/fake-runtime.js';

// The per-request key lookup is cached (db/keys-repo.ts): these pin down that the cache
// never lets a revoked key through and never remembers a wrong one.
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
});
afterAll(() => svc.close());

describe('cached API key lookup', () => {
  it('a key used a moment ago answers 401 right after it is revoked (API and inference)', async () => {
    const created = await (await svc.api('/v1/api-keys', { method: 'POST', json: { name: 'cached', scope: 'user' } })).json();
    const headers = { authorization: `Bearer ${created.secret}` };
    expect((await svc.api('/v1/whoami', { headers })).status).toBe(200);
    expect((await svc.api('/v1/models', { headers })).status).toBe(200); // now in the cache
    expect((await svc.api(`/v1/api-keys/${created.id}`, { method: 'DELETE' })).status).toBe(200);
    for (const p of ['/v1/whoami', '/v1/models']) {
      const res = await svc.api(p, { headers });
      expect(res.status).toBe(401);
      expect((await errorOf(res)).code).toBe('invalid_api_key');
    }
  });

  it('a revoke that bypasses the repository is honoured once the entry expires', async () => {
    const keys = svc.ctx.repos.keys;
    const { row, secret } = await keys.create((await svc.ctx.repos.orgs.first())!.id, 'raw', 'user');
    const t = Date.now();
    expect((await keys.findBySecret(secret, t))?.id).toBe(row.id);
    await svc.ctx.db.run('UPDATE api_keys SET revoked_at = ? WHERE id = ?', [new Date().toISOString(), row.id]);
    expect((await keys.findBySecret(secret, t + 1))?.id).toBe(row.id); // within KEY_CACHE_MS: the stated bound
    expect(await keys.findBySecret(secret, t + 5_001)).toBeUndefined();
  });

  it('wrong secrets are not remembered: a key created after a failed try works at once', async () => {
    const secret = `bxk_${'z'.repeat(40)}`;
    expect((await svc.api('/v1/whoami', { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
    const orgId = (await svc.ctx.repos.orgs.first())!.id;
    await svc.ctx.repos.keys.create(orgId, 'late', 'user', secret);
    expect((await svc.api('/v1/whoami', { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
  });
});
