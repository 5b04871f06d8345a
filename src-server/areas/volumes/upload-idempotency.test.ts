import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';

// Issue 14 item 6: streamed uploads honour Idempotency-Key; the raw body is hashed as it streams.
let svc: TestService;
let vol: string;
let root: string;
beforeAll(async () => {
  svc = await startTestService();
  vol = (await (await svc.api('/v1/box-volumes', { method: 'POST', json: { name: 'upidem' } })).json()).volume_id;
  root = path.join(svc.dataDir, 'volumes', vol, 'data');
});
afterAll(() => svc.close());

const put = (p: string, body: string, key: string) =>
  svc.api(`/v1/box-volumes/${vol}/files?path=${p}`, { method: 'PUT', body, headers: { 'Idempotency-Key': key } });

describe('Idempotency-Key on PUT file uploads', () => {
  it('the same key and bytes replay the answer without writing again', async () => {
    const first = await put('a.txt', 'hello', 'up-1');
    expect(first.status).toBe(200);
    const firstBytes = Buffer.from(await first.arrayBuffer());
    fs.writeFileSync(path.join(root, 'a.txt'), 'changed by a box');
    const again = await put('a.txt', 'hello', 'up-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(Buffer.from(await again.arrayBuffer()).equals(firstBytes)).toBe(true);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('changed by a box');
  });

  it('the same key with different bytes → 409, nothing written', async () => {
    expect((await put('b.txt', 'one', 'up-2')).status).toBe(200);
    const res = await put('b.txt', 'two', 'up-2');
    expect(res.status).toBe(409);
    expect(await errorOf(res)).toMatchObject({ type: 'conflict_error', param: 'Idempotency-Key', code: 'idempotency_key_reused' });
    expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('one');
  });

  it('the same key on another path → 409', async () => {
    expect((await put('c.txt', 'same', 'up-3')).status).toBe(200);
    expect((await put('d.txt', 'same', 'up-3')).status).toBe(409);
    expect(fs.existsSync(path.join(root, 'd.txt'))).toBe(false);
  });

  it('a 300-byte key → 400 naming Idempotency-Key, nothing written', async () => {
    const res = await put('e.txt', 'x', 'k'.repeat(300));
    expect(res.status).toBe(400);
    expect((await errorOf(res)).param).toBe('Idempotency-Key');
    expect(fs.existsSync(path.join(root, 'e.txt'))).toBe(false);
  });

  it('an upload refused before its body was read is not settled (its bytes were never hashed): a corrected retry runs', async () => {
    const bad = await svc.api(`/v1/box-volumes/${vol}/files?path=f.txt&mode=9`, { method: 'PUT', body: 'x', headers: { 'Idempotency-Key': 'up-4' } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('idempotent-replayed')).toBeNull();
    const fixed = await svc.api(`/v1/box-volumes/${vol}/files?path=f.txt&mode=0640`, { method: 'PUT', body: 'x', headers: { 'Idempotency-Key': 'up-4' } });
    expect(fixed.status).toBe(200);
    expect(fs.statSync(path.join(root, 'f.txt')).mode & 0o777).toBe(0o640);
  });
});
