import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { operationsOf, requestsFor, type FuzzRequest } from '../../test-support/fuzz.js';
import { startTestService, type TestService } from '../../test-support/harness.js';

/**
 * The standing route fuzzer (issue 14): every operation of GET /v1/openapi.json gets
 * hostile requests on the fake runtime. Never a 500, always the spec's envelope on an
 * error (E2B's `{code, message}` on E2B's routes), never a hang. FUZZ_RUNS (per operation) and FUZZ_SEED reproduce or widen a run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = Number(process.env.FUZZ_SEED ?? 1414);
const HANG_MS = 15_000;

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
});
afterAll(() => svc?.close());

interface Wrong {
  request: string;
  status: number;
  why: string;
}

async function check(r: FuzzRequest): Promise<Wrong | undefined> {
  const request = `${r.method} ${r.url.slice(svc.url.length, svc.url.length + 160)}`;
  let res: Response;
  try {
    res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body as BodyInit | undefined, signal: AbortSignal.timeout(HANG_MS) });
  } catch (e) {
    const name = (e as Error).name;
    return { request, status: 0, why: name === 'TimeoutError' ? `no answer within ${HANG_MS} ms` : `connection failed: ${(e as Error).message}` };
  }
  if (res.status < 400) {
    await res.body?.cancel(); // a stream (exec output, SSE) may legitimately stay open
    return undefined;
  }
  const text = await res.text();
  if (res.status === 500) return { request, status: 500, why: text.slice(0, 200) };
  let body: { error?: Record<string, unknown>; code?: unknown; message?: unknown };
  try {
    body = JSON.parse(text);
  } catch {
    return { request, status: res.status, why: `error body is not JSON: ${text.slice(0, 120)}` };
  }
  // E2B's API (routes with errors: 'e2b') answers E2B's `{code, message}`, code the status
  if (new URL(r.url).pathname.startsWith('/e2b/')) {
    if (body.code === res.status && typeof body.message === 'string' && Object.keys(body).length === 2) return undefined;
    return { request, status: res.status, why: `not E2B's error body: ${text.slice(0, 160)}` };
  }
  const e = body.error;
  if (!e || typeof e.message !== 'string' || typeof e.type !== 'string' || !('param' in e) || !('code' in e)) {
    return { request, status: res.status, why: `not the error envelope: ${text.slice(0, 160)}` };
  }
  return undefined;
}

describe('route fuzzer (OpenAPI-driven)', () => {
  it('no route answers 500, a non-envelope error, or hangs', async () => {
    const doc = await (await fetch(`${svc.url}/v1/openapi.json`)).json();
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(80);
    const wrong: Wrong[] = [];
    let tried = 0;
    for (const [i, op] of ops.entries()) {
      const batch = fc.sample(requestsFor(op, svc.url, svc.key), { numRuns: RUNS, seed: SEED + i });
      // A few at once: the per-organization limiter would refuse more with a (correct) 429.
      for (let j = 0; j < batch.length; j += 4) {
        const got = await Promise.all(batch.slice(j, j + 4).map(check));
        tried += got.length;
        for (const w of got) if (w) wrong.push(w);
      }
    }
    console.log(`route fuzzer: ${ops.length} operations, ${tried} requests, ${wrong.length} wrong answers (seed ${SEED})`);
    expect(wrong).toEqual([]);
  }, 120_000);
});
