import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestService } from '../../test-support/harness.js';
import { waitFor } from './test-support/receiver.js';
import { startInferenceService } from './test-support/service.js';

// Issue 10: when the client goes away, the gateway closes its upstream call too.
let svc: TestService;
let upstream: http.Server;
const seen: { arrived: number; closed: number } = { arrived: 0, closed: 0 };

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    if (req.url?.endsWith('/models')) return void res.end(JSON.stringify({ data: [{ id: 'slow', created: 0 }] }));
    seen.arrived++;
    res.on('close', () => seen.closed++); // never answers: only a cancelled call ends
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  svc = await startInferenceService();
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  expect((await svc.api('/v1/engines', { method: 'POST', json: { name: 'slow', kind: 'openai', base_url: url } })).status).toBe(200);
});
afterAll(async () => {
  await svc?.close();
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
});

for (const [path, body] of [
  ['/v1/responses', { model: 'slow/m', input: 'x' }],
  ['/v1/chat/completions', { model: 'slow/m', messages: [{ role: 'user', content: 'x' }] }],
  ['/v1/messages', { model: 'slow/m', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }],
] as const) {
  it(`${path}: a client that goes away cancels the upstream call`, async () => {
    const before = { ...seen };
    const ctl = new AbortController();
    const call = svc.api(path, { method: 'POST', json: body, signal: ctl.signal }).catch((e: Error) => e);
    await waitFor(
      async () => seen.arrived,
      (n) => n > before.arrived,
    );
    expect(seen.closed).toBe(before.closed);
    ctl.abort();
    expect(await call).toBeInstanceOf(Error);
    await waitFor(
      async () => seen.closed,
      (n) => n > before.closed,
    );
  });
}
