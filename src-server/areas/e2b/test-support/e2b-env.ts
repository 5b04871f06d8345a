import fs from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { Sandbox } from 'e2b';
import { FakeRuntime } from '../../../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../../test-support/harness.js';

/** Points the stock E2B SDKs at a test service the way their users do: the three variables. */
export function pointE2BAt(svc: TestService): void {
  process.env.E2B_API_URL = `${svc.url}/e2b/api`;
  process.env.E2B_SANDBOX_URL = `${svc.url}/e2b/sandbox`;
  process.env.E2B_API_KEY = svc.key;
}

/** Kills every running or paused sandbox (a file's afterAll), then closes the service. */
export async function killSandboxesAndClose(svc: TestService | undefined): Promise<void> {
  if (!svc) return;
  const left = await Sandbox.list({ query: { state: ['running', 'paused'] } })
    .nextItems()
    .catch(() => []);
  for (const x of left) await Sandbox.kill(x.sandboxId).catch(() => {});
  await svc.close();
}

/** The stock SDK's connection options for a test service, passed per call (no environment). */
function e2bOptions(svc: TestService): { apiKey: string; apiUrl: string; sandboxUrl: string } {
  return { apiKey: svc.key, apiUrl: `${svc.url}/e2b/api`, sandboxUrl: `${svc.url}/e2b/sandbox` };
}

/** A raw request to E2B's REST API of a test service (X-API-Key; `json` as the body). */
const e2bFetch =
  (opts: { apiKey: string; apiUrl: string }) =>
  (p: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> =>
    fetch(`${opts.apiUrl}${p}`, {
      ...init,
      headers: { 'X-API-Key': opts.apiKey, ...(init.json !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    });

/** A file's E2B test service: filled in by its beforeAll. */
interface E2BTestEnv {
  svc: TestService;
  opts: ReturnType<typeof e2bOptions>;
  e2b: ReturnType<typeof e2bFetch>;
}

/**
 * A file's E2B test service on the fake runtime: started in beforeAll, closed in afterAll;
 * its fields are read inside tests.
 */
export function e2bTestService(prefix: string): E2BTestEnv {
  const env = {} as E2BTestEnv;
  beforeAll(async () => {
    env.svc = await startTestService({ dataDir: fs.mkdtempSync(`/tmp/${prefix}`), runtime: (d) => new FakeRuntime(d) });
    env.opts = e2bOptions(env.svc);
    env.e2b = e2bFetch(env.opts);
  });
  afterAll(async () => {
    await env.svc?.close();
  });
  return env;
}
