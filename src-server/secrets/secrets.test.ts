import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, storedBytes, type TestService } from '../test-support/harness.js';
import { MASTER_KEY_FILE } from '../util/crypto-box.js';

let svc: TestService;
let orgId: string;
beforeAll(async () => {
  svc = await startTestService({});
  orgId = (await svc.ctx.repos.orgs.ensureDefault()).id;
});
afterAll(() => svc.close());

const PLAIN = 'sk-live-PLAINTEXT-canary-0123456789abcdef';
const put = (name: string, value: unknown) => svc.api(`/v1/secrets/${name}`, { method: 'PUT', json: { value } });

describe('secrets', () => {
  it('PUT creates, GET shows metadata only, list by name, replace keeps created_at', async () => {
    const created = await put('API_TOKEN', PLAIN);
    expect(created.status).toBe(200);
    const meta = await created.json();
    expect(Object.keys(meta).sort()).toEqual(['created_at', 'name', 'updated_at']);
    expect(meta.name).toBe('API_TOKEN');
    const got = await (await svc.api('/v1/secrets/API_TOKEN')).json();
    expect(got).toEqual(meta);
    await new Promise((r) => setTimeout(r, 10));
    const replaced = await (await put('API_TOKEN', `${PLAIN}-v2`)).json();
    expect(replaced.created_at).toBe(meta.created_at);
    expect(replaced.updated_at > meta.updated_at).toBe(true);
    await put('_a', 'x');
    const list = await (await svc.api('/v1/secrets')).json();
    expect(list.data.map((s: { name: string }) => s.name)).toEqual(['API_TOKEN', '_a']);
    expect(await svc.ctx.services.secrets.resolve(orgId, 'API_TOKEN')).toBe(`${PLAIN}-v2`);
    expect(await svc.ctx.services.secrets.resolve(orgId, 'NOPE')).toBeUndefined();
  });

  it('the plaintext is in no response and not in the database file; the master key is 32 bytes, 0600', async () => {
    await put('CANARY', PLAIN);
    const bodies = await Promise.all(['/v1/secrets', '/v1/secrets/CANARY', '/v1/secrets/CANARY/policies'].map(async (p) => (await svc.api(p)).text()));
    for (const b of bodies) expect(b).not.toContain(PLAIN);
    expect((await storedBytes(svc)).includes(Buffer.from(PLAIN))).toBe(false);
    const keyFile = path.join(svc.dataDir, MASTER_KEY_FILE);
    expect(fs.statSync(keyFile).size).toBe(32);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    // A sealed value is bound to its row: moved under another name it no longer opens.
    const blob = (await svc.ctx.db.get('SELECT ciphertext FROM secrets WHERE name = ?', ['CANARY'])) as { ciphertext: Buffer };
    await svc.ctx.db.run('UPDATE secrets SET ciphertext = ? WHERE name = ?', [blob.ciphertext, '_a']);
    await expect(svc.ctx.services.secrets.resolve(orgId, '_a')).rejects.toThrow();
    await put('_a', 'x');
  });

  it('names like env var names, values up to 64 KiB', async () => {
    for (const bad of ['1ABC', 'has-dash', 'a.b', `A${'b'.repeat(128)}`]) {
      const res = await put(bad, 'v');
      expect(res.status, bad).toBe(400);
      expect((await errorOf(res)).param).toBe('name');
    }
    expect((await put(`A${'b'.repeat(127)}`, 'v')).status).toBe(200);
    expect((await put('BIG', 'x'.repeat(65536))).status).toBe(200);
    const big = await put('BIG', 'é'.repeat(32769));
    expect(big.status).toBe(400);
    expect((await errorOf(big)).param).toBe('value');
    expect((await errorOf(await put('NUM', 5))).param).toBe('value');
    expect((await errorOf(await svc.api('/v1/secrets/X', { method: 'PUT', json: {} }))).param).toBe('value');
  });

  it('unknown → 404; DELETE removes it', async () => {
    expect((await svc.api('/v1/secrets/NOT_THERE')).status).toBe(404);
    await put('DOOMED', 'x');
    const del = await svc.api('/v1/secrets/DOOMED', { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect((await del.json()).name).toBe('DOOMED');
    expect((await svc.api('/v1/secrets/DOOMED')).status).toBe(404);
    expect((await svc.api('/v1/secrets/DOOMED', { method: 'DELETE' })).status).toBe(404);
    expect(await svc.ctx.services.secrets.resolve(orgId, 'DOOMED')).toBeUndefined();
  });

  it('GET /v1/secrets/{name}/policies lists the policies that refer to it', async () => {
    const mk = async (name: string, header: string) =>
      (
        await (
          await svc.api('/v1/http-policies', {
            method: 'POST',
            json: { name, document: { 'a.io': { rules: [{ request: { set: { headers: { Authorization: header } } } }] } } },
          })
        ).json()
      ).id;
    const uses = await mk('uses', 'Bearer ${secrets.API_TOKEN}');
    await mk('other', 'Bearer ${secrets.API_TOKEN_2}');
    await mk('plain', 'API_TOKEN');
    const res = await (await svc.api('/v1/secrets/API_TOKEN/policies')).json();
    expect(res.data.map((p: { id: string }) => p.id)).toEqual([uses]);
  });

  it('the master key persists across restarts and values stay readable', async () => {
    await svc.close();
    svc = await startTestService({ dataDir: svc.dataDir });
    expect(await svc.ctx.services.secrets.resolve(orgId, 'CANARY')).toBe(PLAIN);
  });
});
