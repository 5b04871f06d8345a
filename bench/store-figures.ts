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
import { boxEnv } from '../src-server/platform/settings.js';
import { med, pct, r1, r3, stockReady, templatesReady } from './runtime-support.js';

interface StoreRun {
  readMs: number[];
  readyMs: number[];
}

/** One service on one store, warmed up: the image (cached), its template built, a box to read. */
async function open(databaseUrl: string | undefined) {
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
    const out: StoreRun = { readMs: [], readyMs: [] };
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
        const box = (await (await api('/v1/boxes', { app_id: appId, name: `s${i}` })).json()) as { box_id: string };
        await exec(box.box_id);
        out.readyMs.push(performance.now() - t);
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
      'PostgreSQL server': given ? 'BOX_DATABASE_URL' : 'throwaway PostgreSQL 15 on this machine',
    };
  } finally {
    server?.stop();
  }
}
