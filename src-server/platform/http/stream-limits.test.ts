import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../test-support/harness.js';

/**
 * Issue 28, fair limits: long-lived streams (exec, console, egress log, SSE) do not count
 * against the per-organization limit of short requests; they have their own bounded pool,
 * and the UI's reads are never starved by them.
 */
let svc: TestService;
const open: AbortController[] = [];
beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d), maxConcurrentPerOrg: 4, maxStreamsPerOrg: 8 });
});
afterAll(async () => {
  for (const a of open) a.abort();
  await svc.close();
});

async function follow(): Promise<number> {
  const ac = new AbortController();
  open.push(ac);
  const res = await svc.api('/v1/service/log?stream=1', { signal: ac.signal });
  if (res.status !== 200) ac.abort();
  return res.status;
}

it('streams beyond the short-request limit leave reads answering; the streams pool is bounded on its own', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 8; i++) statuses.push(await follow());
  expect(statuses).toEqual(Array(8).fill(200)); // twice the short-request limit
  for (let i = 0; i < 4; i++) expect((await svc.api('/v1/boxes')).status).toBe(200);
  const reads = await Promise.all(Array.from({ length: 4 }, () => svc.api('/v1/status')));
  expect(reads.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  const over = await svc.api('/v1/service/log?stream=1');
  expect(over.status).toBe(429);
  expect((await over.json()).error.message).toContain('long-lived streams');
});
