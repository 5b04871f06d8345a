/**
 * `npm run bench:crash`: the service's own crash and stop suite (issue 28). Real VMs
 * (QEMU; TCG here), the service started as users start it, each stop as operators stop it:
 *   - group-sigterm: SIGTERM to the whole process group of `npm run serve` (systemd, docker stop);
 *   - launcher-sigterm: SIGTERM to the pid of `npm start` (a supervisor of npm);
 *   - group-sigint: Ctrl+C in the terminal of `npm start` (SIGINT to the group);
 *   - kill-9: SIGKILL of the service itself (a crash), boxes left running, then a restart.
 * Before each stop every box gets an acknowledged file write through the API; after the
 * restart each file is read back. Prints a JSON line per stop and a Markdown table for
 * BENCHMARKS.md, "Crash and stop suite". BOXES (default 40) boxes, STOPS (default all four) comma-separated;
 * RESTART_VIA=`npm run serve` restarts through npm instead of node on the entry.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ADOPTING_MESSAGE } from '../src-server/areas/boxes/reconcile.js';
import { killUnder, processesUnder, signalGroup, spawnService, type Launcher, type Spawned } from '../src-server/test-support/spawned-service.js';

const BOXES = Number(process.env.BOXES ?? 40);
const ALL = ['group-sigterm', 'launcher-sigterm', 'group-sigint', 'kill-9'] as const;
type Stop = (typeof ALL)[number];
/** How both restarts start the service: `node` on the entry (a service manager's ExecStart), or `npm run serve` (npm's own start comes first). */
const RESTART_VIA: Launcher = process.env.RESTART_VIA === 'npm run serve' ? 'npm run serve' : 'node';
const STOPS = (process.env.STOPS?.split(',') as Stop[] | undefined) ?? [...ALL];
process.env.BOX_IMAGE_CACHE ??= path.resolve('.data/image-cache');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function ok(s: Spawned, p: string, init: RequestInit & { json?: unknown } = {}) {
  const res = await s.api(p, init);
  if (res.status >= 300) throw new Error(`${init.method ?? 'GET'} ${p}: ${res.status} ${await res.text()}`);
  return res;
}
/** Boxes still being taken over after a restart (boxes/reconcile.ts ADOPTING_MESSAGE). */
const adopting = (dataDir: string) => {
  const db = new Database(path.join(dataDir, 'box.db'), { readonly: true });
  try {
    return (db.prepare(`SELECT count(*) AS n FROM boxes WHERE status = 'interrupted_restorable' AND error_message = ?`).get(ADOPTING_MESSAGE) as { n: number })
      .n;
  } finally {
    db.close();
  }
};
const statuses = (dataDir: string) => {
  const db = new Database(path.join(dataDir, 'box.db'), { readonly: true });
  try {
    return (db.prepare(`SELECT status FROM boxes WHERE status != 'terminated'`).all() as { status: string }[]).map((r) => r.status);
  } finally {
    db.close();
  }
};
const count = (xs: string[]) =>
  Object.entries(xs.reduce<Record<string, number>>((m, x) => ((m[x] = (m[x] ?? 0) + 1), m), {}))
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');

async function round(stop: Stop) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bxcrash-'));
  const launcher: Launcher = stop === 'group-sigterm' || stop === 'kill-9' ? 'npm run serve' : 'npm start';
  let s = await spawnService({ launcher, dataDir, timeoutMs: 600_000 });
  // the baseline: a restart of the same service with no box (same run, same load)
  signalGroup(s, 'SIGTERM');
  await s.exited;
  const tb = Date.now();
  s = await spawnService({ launcher: RESTART_VIA, dataDir, timeoutMs: 600_000 });
  const restart0S = (Date.now() - tb) / 1000;
  signalGroup(s, 'SIGTERM');
  await s.exited;
  s = await spawnService({ launcher, dataDir, timeoutMs: 600_000 });
  const t0 = Date.now();
  const app = (await (await ok(s, '/v1/apps/find', { method: 'POST', json: { name: 'crash', mint_if_missing: true } })).json()).id;
  const ids: string[] = [];
  // 8 creates at a time (what a client would do; 40 at once on 2 cores is a load test of its own)
  for (let i = 0; i < BOXES; i += 8) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(8, BOXES - i) }, (_, j) =>
        ok(s, '/v1/boxes', { method: 'POST', json: { app_id: app, name: `c${i + j}` }, headers: { 'Idempotency-Key': `create-${i + j}` } }).then((r) =>
          r.json(),
        ),
      ),
    );
    ids.push(...batch.map((b: { box_id: string }) => b.box_id));
  }
  const createdS = (Date.now() - t0) / 1000;
  // an acknowledged write in every box
  const acked = new Map<string, string>();
  await Promise.all(
    ids.map(async (id, i) => {
      const content = `ack ${stop} ${i} ${Date.now()}\n`;
      const r = await s.api(`/v1/boxes/${id}/files?path=${encodeURIComponent('/root/ack.txt')}`, { method: 'PUT', body: content });
      if (r.status === 200) acked.set(id, content);
      else await r.text();
    }),
  );
  const qemusBefore = processesUnder(dataDir).length;
  const t1 = Date.now();
  let exit: { code: number | null; signal: string | null };
  if (stop === 'group-sigterm') signalGroup(s, 'SIGTERM');
  else if (stop === 'group-sigint') signalGroup(s, 'SIGINT');
  else if (stop === 'launcher-sigterm') s.child.kill('SIGTERM');
  if (stop === 'kill-9') {
    // the service itself (npm run serve execs node: the group's leader is npm, its child the service)
    for (const pid of processesUnder(dataDir, 'headless.ts')) process.kill(pid, 'SIGKILL');
    exit = await s.exited;
  } else exit = await s.exited;
  const stopS = (Date.now() - t1) / 1000;
  for (let i = 0; i < 50 && stop !== 'kill-9' && processesUnder(dataDir).length; i++) await sleep(200);
  const qemusLeft = stop === 'kill-9' ? null : processesUnder(dataDir).length;
  const afterStop = statuses(dataDir);

  // restart: how long until the API answers with every box accounted for
  const t2 = Date.now();
  s = await spawnService({ launcher: RESTART_VIA, dataDir, timeoutMs: 600_000 });
  const restartS = (Date.now() - t2) / 1000;
  const afterRestart = statuses(dataDir);
  // the adoptions run in the background after the API answers: until every box is settled
  while (adopting(dataDir) && Date.now() - t2 < 600_000) await sleep(100);
  const adoptedS = (Date.now() - t2) / 1000;
  const afterAdoption = statuses(dataDir);
  if (process.env.SHOW_LOG) {
    const log = fs.readFileSync(path.join(dataDir, 'logs', 'service.log'), 'utf8').split('\n');
    const from = log.findLastIndex((l) => l.includes('service starting'));
    console.log(`restart: spawned at ${new Date(t2).toISOString()}\n${log.slice(Math.max(0, from - 3), from + 12).join('\n')}`);
    console.log(log.slice(from).find((l) => l.includes('yielded the CPU')) ?? 'no running box VM yielded the CPU');
  }
  let lost = 0;
  for (const [id, content] of acked) {
    const r = await s.api(`/v1/boxes/${id}/files?path=${encodeURIComponent('/root/ack.txt')}`);
    if (r.status !== 200 || (await r.text()) !== content) lost++;
  }
  const replay = await s.api('/v1/boxes', {
    method: 'POST',
    json: { app_id: app, name: 'c0' },
    headers: { 'Idempotency-Key': 'create-0', 'content-type': 'application/json' },
  });
  const replayed = replay.headers.get('idempotent-replayed') === 'true' && (await replay.json()).box_id === ids[0];
  for (const id of ids) await s.api(`/v1/boxes/${id}/terminate`, { method: 'POST' });
  signalGroup(s, 'SIGTERM');
  await s.exited;
  killUnder(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
  return {
    stop,
    launcher,
    restart_via: RESTART_VIA,
    boxes: ids.length,
    created_s: createdS,
    qemus_before: qemusBefore,
    exit: exit.code ?? exit.signal,
    stop_s: stopS,
    qemus_left: qemusLeft,
    after_stop: count(afterStop),
    restart0_s: restart0S,
    restart_s: restartS,
    after_restart: count(afterRestart),
    adopted_s: adoptedS,
    after_adoption: count(afterAdoption),
    writes_acked: acked.size,
    writes_lost: lost,
    idempotent_create_replayed: replayed,
  };
}

const rows = [];
for (const stop of STOPS) {
  const r = await round(stop);
  console.log(JSON.stringify(r));
  rows.push(r);
}
console.log(
  `\nload ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}, ${os.cpus().length} CPUs, ${new Date().toISOString()}`,
);
console.log(
  '| stop | launcher | boxes | exit | stop s | QEMUs left | after the stop | restart s (0 boxes) | restart s | after the restart | all adopted s | after adoption | writes acked | lost | create replayed |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(
    `| ${r.stop} | ${r.launcher} | ${r.boxes} | ${r.exit} | ${r.stop_s.toFixed(1)} | ${r.qemus_left ?? 'n/a'} | ${r.after_stop} | ${r.restart0_s.toFixed(1)} | ${r.restart_s.toFixed(1)} | ${r.after_restart} | ${r.adopted_s.toFixed(1)} | ${r.after_adoption} | ${r.writes_acked} | **${r.writes_lost}** | ${r.idempotent_create_replayed} |`,
  );
}
process.exit(rows.every((r) => r.writes_lost === 0 && (r.qemus_left ?? 0) === 0) ? 0 : 1);
