import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabase, startPostgres, type PgServer } from '../test-support/postgres.js';

/**
 * Issue 39: on PostgreSQL, kill -9 of the service (a real process) while it is answering
 * writes loses no acknowledged write. Clients create apps and keep writing secrets as fast as
 * the service answers; the service is killed mid-stream; after a restart on the same
 * database every write that was answered 2xx is there (writes in flight may or may not be).
 */
const KEY = 'bxk_pg_crash_test_key_000000000000000000';
const CHILD = path.resolve(__dirname, '../test-support/crash-child.ts');
const children: ChildProcess[] = [];
let server: PgServer;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  server?.stop();
});

function start(dataDir: string, databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir, KEY], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BOX_DATABASE_URL: databaseUrl, BOX_CRASH_AT: '' },
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /URL (\S+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.once('exit', (code) => reject(new Error(`service exited (${code}) before listening`)));
  });
}

const api = (url: string, p: string, init: RequestInit = {}) =>
  fetch(`${url}${p}`, { ...init, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...init.headers } });

it('kill -9 during writes: every acknowledged write is there after the restart', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-pg-crash-'));
  const db = await createDatabase(server.url, 'crash');
  let svc = await start(dataDir, db);
  const acked = { apps: new Set<string>(), secrets: new Map<string, string>() };
  let stop = false;
  const writer = async (w: number) => {
    for (let i = 0; !stop; i++) {
      try {
        const name = `w${w}-app-${i}`;
        const r = await api(svc.url, '/v1/apps/find', { method: 'POST', body: JSON.stringify({ name, mint_if_missing: true }) });
        if (r.ok) acked.apps.add(name);
        const value = `v${i}`;
        const s = await api(svc.url, `/v1/secrets/S_${w}`, { method: 'PUT', body: JSON.stringify({ value }) });
        if (s.ok) acked.secrets.set(`S_${w}`, value);
      } catch {
        return; // the connection died with the service
      }
    }
  };
  const writers = Promise.all(Array.from({ length: 4 }, (_, w) => writer(w)));
  // let the writes run, then kill -9 in the middle of them
  while (acked.apps.size < 40) await new Promise((r) => setTimeout(r, 20));
  svc.child.kill('SIGKILL');
  await new Promise((r) => svc.child.once('exit', r));
  stop = true;
  await writers;
  expect(acked.apps.size).toBeGreaterThanOrEqual(40);

  svc = await start(dataDir, db);
  const apps = (await (await api(svc.url, '/v1/apps')).json()) as { data: { app_name: string }[] };
  const names = new Set(apps.data.map((a) => a.app_name));
  expect(names.size).toBeGreaterThanOrEqual(acked.apps.size);
  const lost = [...acked.apps].filter((n) => !names.has(n));
  expect(lost).toEqual([]);
  for (const [name, value] of acked.secrets) {
    // the acknowledged value, or a later one whose answer was lost with the connection
    const meta = await api(svc.url, `/v1/secrets/${name}`);
    expect(meta.status, `secret ${name} (last acknowledged value ${value})`).toBe(200);
  }
  svc.child.kill('SIGKILL');
}, 180_000);
