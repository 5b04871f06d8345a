import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { responseViolations } from '../http/response-check.js';
import { startService, type ServiceHandle, type StartOptions } from '../service.js';

export interface TestService extends ServiceHandle {
  key: string;
  dataDir: string;
  /** fetch against the service with the test key; `init.headers` are merged. */
  api(pathname: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

const TEST_KEY = 'bxk_test_key_for_route_tests_000000000000';

/**
 * Starts the real service (real SQLite, real HTTP) on a fresh temp data dir and a free port.
 * The default template is not prepared at start (tuning.prepareTemplates: true asks for it):
 * every route test would otherwise boot a template VM it never uses. A first create waits
 * for its template (tuning.coldWhileTemplateBuilds: true cold-boots it meanwhile, as the
 * service does by default).
 */
export async function startTestService(opts: Partial<StartOptions> = {}): Promise<TestService> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'box-test-'));
  const tuning = { prepareTemplates: false, coldWhileTemplateBuilds: false, ...opts.tuning };
  const svc = await startService({ ...opts, tuning, dataDir, apiKey: opts.apiKey ?? TEST_KEY, log: opts.log ?? quietLog });
  const key = opts.apiKey ?? TEST_KEY;
  const api = (pathname: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
    let body = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers.set('content-type', 'application/json');
    }
    return fetch(`${svc.url}${pathname}`, { ...init, headers, body });
  };
  // Every 2xx JSON answer is checked against its route's response schema (checkResponses,
  // on under vitest); a violation already answered 500, and closing the service fails the test too.
  const close = async () => {
    await svc.close();
    const bad = responseViolations(svc.ctx);
    if (bad.length) throw new Error(`response contract violations:\n${[...new Set(bad)].join('\n')}`);
  };
  return { ...svc, close, key, dataDir, api };
}

const quietLog = { info() {}, warn() {}, error() {} };

/** Reads an error envelope and checks its shape (every error path must produce it). */
export async function errorOf(res: Response) {
  const body = (await res.json()) as { error: { message: string; type: string; param: string | null; code: unknown } };
  if (!body.error || typeof body.error.message !== 'string' || !('param' in body.error) || !('code' in body.error)) {
    throw new Error(`not an error envelope: ${JSON.stringify(body)}`);
  }
  return body.error;
}

/** Terminates every box of the service (a VM test's afterAll: no QEMU outlives the file). */
export async function terminateBoxes(svc: Pick<TestService, 'api'>): Promise<void> {
  const list = (await (await svc.api('/v1/boxes?limit=100')).json()) as { data?: { box_id: string }[] };
  for (const b of list.data ?? []) await svc.api(`/v1/boxes/${b.box_id}/terminate`, { method: 'POST' });
}

/**
 * Waits until the service's templates are built (start it with tuning.prepareTemplates:
 * true). A VM test whose first create would build the template (with the code warm-up:
 * minutes under TCG and load) waits here, polling, instead of holding one request open
 * past fetch's 300 s headers timeout. Throws on a failed build, naming its error.
 */
export async function templatesReady(svc: Pick<TestService, 'api'>, timeoutMs = 900_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = (await (await svc.api('/v1/templates')).json()) as { data: { template_id: string; state: string; error?: string }[] };
    const failed = list.data.find((t) => t.state === 'failed');
    if (failed) throw new Error(`template ${failed.template_id} failed to build: ${failed.error}`);
    if (list.data.length && list.data.every((t) => t.state === 'ready')) return;
    if (Date.now() > deadline) throw new Error(`templates not ready after ${timeoutMs} ms: ${JSON.stringify(list.data.map((t) => t.state))}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
