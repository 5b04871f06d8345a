import { afterAll, beforeAll, expect, it } from 'vitest';
import { holdRequests } from '../../test-support/hold-requests.js';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ maxConcurrentPerOrg: 1 });
});
afterAll(() => svc.close());

it('a request over the per-org concurrency limit never starts: 429 rate_limited with Retry-After', async () => {
  // one request held in flight takes the organization's one slot: the next is refused
  const held = await holdRequests(svc, 1);
  const res = await svc.api('/v1/api-keys');
  expect(res.status).toBe(429);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(await errorOf(res)).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
  await held.release();
  // The slot is free again.
  expect((await svc.api('/v1/api-keys')).status).toBe(200);
});
