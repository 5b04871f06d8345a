import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';

// Issue 14 items 4 and 6 on PUT /v1/boxes/{id}/files (route level, fake runtime; the guest side is the agent's).
let svc: TestService;
let boxId: string;
beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  const appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'files', mint_if_missing: true } })).json()).id;
  boxId = (await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'files-hostile' } })).json()).box_id;
});
afterAll(() => svc.close());

const put = (p: string, body: string, headers: Record<string, string> = {}, extra = '') =>
  svc.api(`/v1/boxes/${boxId}/files?path=${encodeURIComponent(p)}${extra}`, { method: 'PUT', body, headers });
const read = async (p: string) => (await svc.api(`/v1/boxes/${boxId}/files?path=${encodeURIComponent(p)}`)).text();

describe('box file uploads', () => {
  it('refuse setuid/setgid/sticky modes, naming mode', async () => {
    const res = await put('/tmp/suid-file', 'x', {}, '&mode=4755');
    expect(res.status).toBe(400);
    expect((await errorOf(res)).param).toBe('mode');
  });

  it('honour Idempotency-Key: same bytes replay, different bytes 409', async () => {
    const first = await put('/tmp/idem-file', 'one', { 'Idempotency-Key': 'bf-1' });
    expect(first.status).toBe(200);
    const again = await put('/tmp/idem-file', 'one', { 'Idempotency-Key': 'bf-1' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await put('/tmp/idem-file', 'two', { 'Idempotency-Key': 'bf-1' });
    expect(other.status).toBe(409);
    expect(await read('/tmp/idem-file')).toBe('one');
  });
});
