import http from 'node:http';
import { expect } from 'vitest';
import type { TestService } from './harness.js';

/**
 * Holds `n` API requests in flight (headers sent, body still arriving), each taking one of
 * the organization's concurrency slots, until released. A probe sent too soon can take a
 * slot before a held request is admitted (authentication is a store round trip, longer on
 * PostgreSQL): that held request is then answered 429 and another is held in its place,
 * until a probe is the one refused.
 */
export async function holdRequests(svc: TestService, n: number): Promise<{ release(): Promise<void> }> {
  const u = new URL(svc.url);
  const body = '{"name":"slow","scope":"organization"}';
  const open = () => {
    const req = http.request({
      host: u.hostname,
      port: u.port,
      method: 'POST',
      path: '/v1/api-keys',
      headers: { authorization: `Bearer ${svc.key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const h = { req, status: undefined as number | undefined, done: undefined as unknown as Promise<number> };
    h.done = new Promise<number>((resolve) => req.on('response', (r) => (r.resume(), (h.status = r.statusCode!), resolve(r.statusCode!))));
    req.write(body.slice(0, 20));
    return h;
  };
  let held = Array.from({ length: n }, open);
  for (const deadline = Date.now() + 30_000; ;) {
    if (Date.now() > deadline) throw new Error(`${n} requests could not be held in flight within 30 s`);
    await new Promise((r) => setTimeout(r, 50));
    if (held.some((h) => h.status !== undefined)) {
      held = held.map((h) => (h.status === undefined ? h : open()));
      continue;
    }
    if ((await svc.api('/v1/api-keys')).status === 429) break;
  }
  return {
    async release() {
      for (const h of held) h.req.end(body.slice(20));
      for (const h of held) expect(await h.done).toBe(200);
    },
  };
}
