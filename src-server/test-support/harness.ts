import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { inject } from 'vitest';
import { responseViolations } from '../platform/http/response-check.js';
import { createDatabase, PG_BIN } from './postgres.js';
import { startService, type ServiceHandle, type StartOptions } from '../service.js';

export interface TestService extends ServiceHandle {
  key: string;
  dataDir: string;
  /** The PostgreSQL database it runs on (the `postgres` project); undefined on SQLite. */
  databaseUrl?: string;
  /** fetch against the service with the test key; `init.headers` are merged. */
  api(pathname: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

const TEST_KEY = 'bxk_test_key_for_route_tests_000000000000';

/**
 * The store test services run on: SQLite in the data dir, or, in vitest's `postgres` project
 * (vitest.config.ts), a database of their own on the run's PostgreSQL server. The database
 * follows the data dir, so a test that restarts a service on its data dir finds its state.
 */
const databases = new Map<string, Promise<string>>();

export async function databaseFor(dataDir: string): Promise<string | undefined> {
  // outside a vitest worker (scripts/python-sdk.ts starts test services too): SQLite
  const server = process.env.VITEST_WORKER_ID ? inject('pgUrl') : undefined;
  if (!server) return undefined;
  let url = databases.get(dataDir);
  if (!url) {
    url = createDatabase(server, `t_${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 20)}`);
    databases.set(dataDir, url);
  }
  return url;
}

/**
 * Starts the real service (real SQLite or PostgreSQL, real HTTP) on a fresh temp data dir and a free port.
 * The default template is not prepared at start (tuning.prepareTemplates: true asks for it):
 * every route test would otherwise boot a template VM it never uses. A first create waits
 * for its template (tuning.coldWhileTemplateBuilds: true cold-boots it meanwhile, as the
 * service does by default).
 */
export async function startTestService(opts: Partial<StartOptions> = {}): Promise<TestService> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'box-test-'));
  const tuning = { prepareTemplates: false, coldWhileTemplateBuilds: false, layeredImage: false, ...opts.tuning };
  const databaseUrl = opts.databaseUrl ?? (await databaseFor(dataDir));
  const svc = await startService({ ...opts, tuning, dataDir, databaseUrl, apiKey: opts.apiKey ?? TEST_KEY, log: opts.log ?? quietLog });
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
  return { ...svc, close, key, dataDir, databaseUrl, api };
}

/**
 * Everything the store holds, as bytes, for "the secret is not in the database" checks: the
 * SQLite files after a checkpoint (WAL folded in), or a pg_dump of the service's database.
 */
export async function storedBytes(svc: TestService): Promise<Buffer> {
  if (svc.databaseUrl) {
    return execFileSync(path.join(PG_BIN, 'pg_dump'), ['--data-only', `--dbname=${svc.databaseUrl}`], { maxBuffer: 1 << 30 });
  }
  const { SqliteStore } = await import('../platform/db/sqlite-store.js');
  if (svc.ctx.db instanceof SqliteStore) svc.ctx.db.db.pragma('wal_checkpoint(TRUNCATE)');
  return Buffer.concat(
    fs
      .readdirSync(svc.dataDir)
      .filter((n) => n.startsWith('box.db'))
      .map((n) => fs.readFileSync(path.join(svc.dataDir, n))),
  );
}

const quietLog = {
  info() {},
  warn() {},
  error(...a: unknown[]) {
    if (process.env.BOX_TEST_LOG_ERRORS) console.error(...a);
  },
};

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
