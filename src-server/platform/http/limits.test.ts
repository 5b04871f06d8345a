import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ maxConcurrentPerOrg: 1 });
});
afterAll(() => svc.close());

it('a request over the per-org concurrency limit never starts: 429 rate_limited with Retry-After', async () => {
  const u = new URL(svc.url);
  // Hold one request in flight: headers sent, body still arriving.
  const body = '{"name":"slow","scope":"organization"}';
  const held = http.request({
    host: u.hostname,
    port: u.port,
    method: 'POST',
    path: '/v1/api-keys',
    headers: { authorization: `Bearer ${svc.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  const heldDone = new Promise<number>((resolve) => held.on('response', (r) => (r.resume(), resolve(r.statusCode!))));
  held.write(body.slice(0, 20));
  // once the service has the held request's headers, the next one is over the limit (asked
  // until then: a fixed wait can be too short on a loaded machine)
  let res = await svc.api('/v1/api-keys');
  for (const deadline = Date.now() + 30_000; res.status !== 429 && Date.now() < deadline; res = await svc.api('/v1/api-keys'))
    await new Promise((r) => setTimeout(r, 50));
  expect(res.status).toBe(429);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(await errorOf(res)).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
  held.end(body.slice(20));
  expect(await heldDone).toBe(200);
  // The slot is free again.
  expect((await svc.api('/v1/api-keys')).status).toBe(200);
});
