/**
 * Issue 28, "other side closed": a Node client (fetch, keep-alive) did a burst of requests,
 * then spent a minute in `box image build` run synchronously (its event loop blocked), and
 * its next POST /v1/boxes was closed without an answer. The cause: the server closed the
 * pooled connections after Node's default 5 s keep-alive, and a client whose event loop was
 * blocked could not see those closes before it reused them; a POST on a dead connection is
 * not retried. The service keeps idle connections for KEEP_ALIVE_MS instead (and says so in
 * the Keep-Alive header, which undici follows). Here the loop is blocked 7 s (> 5 s).
 */
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { startTestService } from '../../test-support/harness.js';
import { KEEP_ALIVE_MS } from './keep-alive.js';

it('pooled keep-alive connections outlive a client whose event loop was blocked for seconds: the next POSTs answer', async () => {
  const svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  try {
    const burst = await Promise.all(Array.from({ length: 16 }, () => svc.api('/v1/boxes').then(async (r) => (await r.text(), r))));
    expect(burst[0]!.headers.get('keep-alive')).toBe(`timeout=${KEEP_ALIVE_MS / 1000}`);
    execFileSync('sleep', ['7']); // blocks this process's event loop, as a synchronous `box image build` does
    const out: string[] = [];
    for (let i = 0; i < 3; i++) {
      try {
        const r = await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'after-build', mint_if_missing: true } });
        await r.text();
        out.push(String(r.status));
      } catch (e) {
        out.push(String((e as Error).cause ?? e)); // main: "Error: read ECONNRESET" / "other side closed"
      }
    }
    expect(out).toEqual(['200', '200', '200']);
  } finally {
    await svc.close();
  }
}, 60_000);
