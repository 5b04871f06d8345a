/**
 * Issue 39's store figures for `npm run bench:runtime` (`--only store`, or with the others):
 * the same service on SQLite and on PostgreSQL, both running, measured interleaved, each its own
 * data dir and (for PostgreSQL) its own database on a throwaway PostgreSQL 15 server, or on
 * BOX_DATABASE_URL when it is set. Ratios PostgreSQL / SQLite:
 *   API read: GET /v1/boxes/{id} p50 (goal <= 1.5);
 *   create → exec ready p50, each from a warm clone (goal <= 1.1).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../src-server/service.js';
import { readExecStream } from '../src-server/test-support/exec-stream.js';
import { createDatabase, startPostgres } from '../src-server/test-support/postgres.js';
import { PgStore } from '../src-server/platform/db/pg-store.js';
import { SqliteStore } from '../src-server/platform/db/sqlite-store.js';
import { boxEnv } from '../src-server/platform/settings.js';
import { med, pct, r1, r3, stockReady, templatesReady } from './runtime-support.js';

interface StoreRun {
  readMs: number[];
  readyMs: number[];
  /** Per create: the statements its store ran meanwhile (offset from the create's start, duration, SQL). */
  traces: Statement[][];
}

interface Statement {
  at: number;
  ms: number;
  sql: string;
}

/**
 * Where a create's time goes in the store: every statement of the store being measured is
 * timed (both stores' get/all/run, wrapped once), offsets from the create's start.
 */
const tracing: { dialect: 'sqlite' | 'postgres' | undefined; t0: number; into: Statement[] } = { dialect: undefined, t0: 0, into: [] };
for (const proto of [PgStore.prototype, SqliteStore.prototype] as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>[]) {
  for (const m of ['get', 'all', 'run']) {
    const orig = proto[m]!;
    proto[m] = async function (this: { dialect: string }, sql: unknown, ...rest: unknown[]) {
      if (tracing.dialect !== this.dialect) return orig.call(this, sql, ...rest);
      const at = performance.now();
      try {
        return await orig.call(this, sql, ...rest);
      } finally {
        tracing.into.push({ at: at - tracing.t0, ms: performance.now() - at, sql: String(sql).replace(/\s+/g, ' ').slice(0, 70) });
      }
    };
  }
}

/** One service on one store, warmed up: the image (cached), its template built, a box to read. */
async function open(databaseUrl: string | undefined) {
  const dialect = databaseUrl ? ('postgres' as const) : ('sqlite' as const);
  const dataDir = await mkdtemp(join(tmpdir(), 'bxs-'));
  const key = `bxk_bench_${randomBytes(8).toString('hex')}`;
  const svc = await startService({ dataDir, databaseUrl, apiKey: key, log: { info() {}, warn() {}, error: console.error } });
  const api = async (path: string, json?: unknown) => {
    const res = await fetch(`${svc.url}${path}`, {
      method: json === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  const get = async (path: string) => (await api(path)).json();
  const exec = async (id: string) => {
    const { exit } = readExecStream(await (await api(`/v1/boxes/${id}/exec`, { command: 'true' })).text());
    if (exit?.status !== 'succeeded') throw new Error('exec true failed');
  };
  let readerId: string | undefined;
  const close = async () => {
    // boxes outlive their service (a restart adopts them): terminate the one box kept running
    if (readerId) await api(`/v1/boxes/${readerId}/terminate`, {}).catch(() => {});
    await svc.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const appId = ((await (await api('/v1/apps/find', { name: 'bench', mint_if_missing: true })).json()) as { id: string }).id;
    const reader = (await (await api('/v1/boxes', { app_id: appId, name: 'reader' })).json()) as { box_id: string };
    readerId = reader.box_id;
    await exec(reader.box_id);
    for (let i = 0; i < 20; i++) await (await api(`/v1/boxes/${reader.box_id}`)).arrayBuffer();
    // Creates from the warm pool, as a team server makes them: the template built, a clone ready.
    await templatesReady(get);
    const out: StoreRun = { readMs: [], readyMs: [], traces: [] };
    return {
      out,
      close,
      async read() {
        const t = performance.now();
        await (await api(`/v1/boxes/${reader.box_id}`)).arrayBuffer();
        out.readMs.push(performance.now() - t);
      },
      /** Its warm pool refilled: no clone being made in the background. */
      async ready() {
        if (!(await stockReady(get))) throw new Error('the warm pool did not refill within 60 s');
      },
      async createToReady(i: number) {
        const t = performance.now();
        Object.assign(tracing, { dialect, t0: t, into: [] });
        const box = (await (await api('/v1/boxes', { app_id: appId, name: `s${i}` })).json()) as { box_id: string };
        await exec(box.box_id);
        out.readyMs.push(performance.now() - t);
        out.traces.push(tracing.into);
        tracing.dialect = undefined;
        await api(`/v1/boxes/${box.box_id}/terminate`, {});
      },
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * Both stores at once, interleaved (a read on one, then on the other; a create on one, then
 * on the other), so that the load of this shared machine falls on both alike.
 */
async function measure(pgUrl: string, runs: number, reads: number): Promise<{ sqlite: StoreRun; postgres: StoreRun }> {
  const sqlite = await open(undefined);
  try {
    const postgres = await open(pgUrl);
    try {
      for (let i = 0; i < reads; i++) for (const s of i % 2 ? [sqlite, postgres] : [postgres, sqlite]) await s.read();
      // Each create starts with both pools refilled: the other service's refill (a clone made in
      // the background after its last box went) would otherwise fall on this one's figure.
      for (let i = 0; i < runs; i++)
        for (const s of i % 2 ? [sqlite, postgres] : [postgres, sqlite]) {
          await Promise.all([sqlite.ready(), postgres.ready()]);
          await s.createToReady(i);
        }
      return { sqlite: sqlite.out, postgres: postgres.out };
    } finally {
      await postgres.close();
    }
  } finally {
    await sqlite.close();
  }
}

export async function storeFigures(runs: number, reads = 300): Promise<Record<string, unknown>> {
  const given = boxEnv().databaseUrl;
  const server = given ? undefined : await startPostgres();
  try {
    const pgUrl = given ?? (await createDatabase(server!.url, `bench_${randomBytes(4).toString('hex')}`));
    const { sqlite, postgres } = await measure(pgUrl, runs, reads);
    return {
      'API read GET /v1/boxes/{id} p50 / p95, ms, SQLite': [r1(med(sqlite.readMs)), r1(pct(sqlite.readMs, 95))],
      'API read GET /v1/boxes/{id} p50 / p95, ms, PostgreSQL': [r1(med(postgres.readMs)), r1(pct(postgres.readMs, 95))],
      'API read p50, PostgreSQL / SQLite (goal <= 1.5)': r3(med(postgres.readMs) / med(sqlite.readMs)),
      'create → exec ready p50, ms, SQLite': r1(med(sqlite.readyMs)),
      'create → exec ready p50, ms, PostgreSQL': r1(med(postgres.readyMs)),
      'create → exec ready p50, PostgreSQL / SQLite (goal <= 1.1)': r3(med(postgres.readyMs) / med(sqlite.readyMs)),
      'create → exec ready, every run in order, ms, SQLite': sqlite.readyMs.map(r1),
      'create → exec ready, every run in order, ms, PostgreSQL': postgres.readyMs.map(r1),
      'statements per create → exec, median: count, ms in statements, ms with one or more running, SQLite': traceSummary(sqlite),
      'statements per create → exec, median: count, ms in statements, ms with one or more running, PostgreSQL': traceSummary(postgres),
      'the median PostgreSQL create → exec, statement by statement (start ms, ms, SQL)': medianTrace(postgres),
      'PostgreSQL server': given ? 'BOX_DATABASE_URL' : 'throwaway PostgreSQL 15 on this machine',
    };
  } finally {
    server?.stop();
  }
}

/** Time covered by at least one statement (statements side by side count once). */
function covered(st: Statement[]): number {
  let total = 0;
  let end = -Infinity;
  for (const x of [...st].sort((a, b) => a.at - b.at)) {
    const from = Math.max(x.at, end);
    if (x.at + x.ms > from) total += x.at + x.ms - from;
    end = Math.max(end, x.at + x.ms);
  }
  return total;
}

function traceSummary(run: StoreRun): number[] {
  const count = med(run.traces.map((t) => t.length));
  const inStatements = med(run.traces.map((t) => t.reduce((n, x) => n + x.ms, 0)));
  return [count, r1(inStatements), r1(med(run.traces.map(covered)))];
}

function medianTrace(run: StoreRun): string[] {
  const m = med(run.readyMs);
  const i = run.readyMs.reduce((best, v, j) => (Math.abs(v - m) < Math.abs(run.readyMs[best]! - m) ? j : best), 0);
  return [`run ${i}: ${r1(run.readyMs[i]!)} ms`, ...run.traces[i]!.map((x) => `${r1(x.at)} +${r1(x.ms)} ${x.sql}`)];
}
