import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../test-support/harness.js';
import { rawRequest } from './test-support/raw-http.js';

// Spec, Idempotency rules, exercised on POST /v1/box-volumes (the endpoint the spec names).
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({});
});
afterAll(() => svc.close());

const create = (name: string, key?: string, auth?: string) =>
  svc.api('/v1/box-volumes', {
    method: 'POST',
    json: { name },
    headers: { ...(key !== undefined ? { 'Idempotency-Key': key } : {}), ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
  });

describe('Idempotency-Key on volume creation', () => {
  it('replays the stored answer byte for byte with Idempotent-Replayed: true', async () => {
    const first = await create('idem-a', 'k-replay');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBytes = Buffer.from(await first.arrayBuffer());
    // Delete it: a fresh run would now create a new volume; a replay returns the old answer.
    const id = JSON.parse(firstBytes.toString()).volume_id;
    expect((await svc.api(`/v1/box-volumes/${id}`, { method: 'DELETE' })).status).toBe(200);
    const again = await create('idem-a', 'k-replay');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(Buffer.from(await again.arrayBuffer()).equals(firstBytes)).toBe(true);
  });

  it('the same key with a different body → 409 conflict_error', async () => {
    expect((await create('idem-b', 'k-diff')).status).toBe(200);
    const res = await create('idem-b2', 'k-diff');
    expect(res.status).toBe(409);
    expect((await errorOf(res)).type).toBe('conflict_error');
  });

  it('a blank or spaces-only key is ignored', async () => {
    for (const key of ['', '   ']) {
      const a = await create('idem-blank', key);
      const b = await create('idem-blank-other', key);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(b.headers.get('idempotent-replayed')).toBeNull();
      expect((await b.json()).name).toBe('idem-blank-other');
    }
  });

  it('counts the key in bytes: 256 UTF-8 bytes → 400, 255 bytes accepted', async () => {
    const body = Buffer.from(JSON.stringify({ name: 'idem-bytes' }));
    const headers = (key: string) => ({ authorization: `Bearer ${svc.key}`, 'content-type': 'application/json', 'idempotency-key': Buffer.from(key, 'utf8') });
    const key256 = 'é'.repeat(128);
    expect(Buffer.byteLength(key256)).toBe(256);
    const tooLong = await rawRequest(svc.url, 'POST', '/v1/box-volumes', headers(key256), body);
    expect(tooLong.status).toBe(400);
    expect(JSON.parse(tooLong.body.toString()).error).toMatchObject({ type: 'invalid_request_error', param: 'Idempotency-Key' });
    const key255 = 'é'.repeat(127) + 'a';
    expect(Buffer.byteLength(key255)).toBe(255);
    const ok = await rawRequest(svc.url, 'POST', '/v1/box-volumes', headers(key255), body);
    expect(ok.status).toBe(200);
    const replay = await rawRequest(svc.url, 'POST', '/v1/box-volumes', headers(key255), body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.equals(ok.body)).toBe(true);
  });

  it('a stored 400 is replayed', async () => {
    const first = await create('bad name!', 'k-400');
    expect(first.status).toBe(400);
    const firstBytes = Buffer.from(await first.arrayBuffer());
    const again = await create('bad name!', 'k-400');
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(Buffer.from(await again.arrayBuffer()).equals(firstBytes)).toBe(true);
  });

  it('keys are scoped per API key: another key with the same Idempotency-Key runs fresh', async () => {
    expect((await create('idem-scope-1', 'k-shared')).status).toBe(200);
    const other = await (await svc.api('/v1/api-keys', { method: 'POST', json: { name: 'second', scope: 'organization' } })).json();
    const res = await create('idem-scope-2', 'k-shared', other.secret);
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect((await res.json()).name).toBe('idem-scope-2');
  });
});

describe('an idempotent request still in flight', () => {
  let slow: TestService;
  beforeAll(async () => {
    slow = await startTestService({ tuning: { volumeCreateDelayMs: 3000 } }); // long enough for the duplicate to arrive meanwhile on a loaded machine
  });
  afterAll(() => slow.close());

  it('a duplicate sent meanwhile → server_error; after it settles the replay works', async () => {
    const post = () => slow.api('/v1/box-volumes', { method: 'POST', json: { name: 'slow' }, headers: { 'Idempotency-Key': 'k-flight' } });
    const first = post();
    // the duplicate goes out once the first holds the key (a fixed 200 ms was not enough on a loaded machine)
    const claimed = async () => (await slow.ctx.db.get("SELECT 1 FROM idempotency_keys WHERE key = 'k-flight' AND state = 'in_flight'")) !== undefined;
    for (const deadline = Date.now() + 30_000; !(await claimed()) && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 10));
    expect(await claimed()).toBe(true);
    const dup = await post();
    expect((await errorOf(dup)).type).toBe('server_error');
    const done = await first;
    expect(done.status).toBe(200);
    const replay = await post();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await replay.json()).volume_id).toBe((await done.json()).volume_id);
  });
});
