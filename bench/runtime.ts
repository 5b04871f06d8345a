/**
 * `npm run bench:runtime [-- --runs 3 --many 16 --execs 50 --only boot,exec,many,store]`: the box
 * runtime figures of issue 9, measured through the HTTP API of a real service, each with
 * its baseline measured in the same run (the machine is shared and noisy; absolute times
 * are not comparable between runs, ratios are):
 *   boot:  create → exec ready p50 / bare QEMU boot of the same kernel + initrd + disk;
 *          fork of a running box; pause, sleep, resume from sleep.
 *   exec:  exec `true` through the API p50 / the same command timed in a loop in the guest.
 *   many:  N boxes created at once until all run; idle PSS per box with the N idle boxes.
 *   store: API read p50 and create → exec ready p50, PostgreSQL / SQLite (store-figures.ts).
 * It measures whatever `create`/`fork` do underneath (cold boot or template clone): the
 * first create is a warm-up that also builds a template where the service has them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { boxFolder, livePid } from '../src-server/areas/runtime/box-folder.js';
import { startService } from '../src-server/service.js';
import { readExecStream } from '../src-server/test-support/exec-stream.js';
import { storeFigures } from './store-figures.js';
import { bareBoot, execClient, execLoopScript, med, pct, qemuCpuMs, qemuPids, r1, r3, stockReady, sumPssMiB, templatesReady } from './runtime-support.js';

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : def);
const RUNS = opt('--runs', 3);
const MANY = opt('--many', 16);
const EXECS = opt('--execs', 50);
const ONLY = new Set((argv.includes('--only') ? argv[argv.indexOf('--only') + 1]! : 'boot,exec,many,store').split(','));
const now = () => performance.now();

process.env.BOX_IMAGE_CACHE ??= join(tmpdir(), 'box-image-cache');
const dataDir = await mkdtemp(join(tmpdir(), 'bxb-'));
const key = `bxk_bench_${randomBytes(8).toString('hex')}`;
const svc = await startService({ dataDir, apiKey: key, log: { info() {}, warn() {}, error: console.error } });
const api = async (path: string, init: { method?: string; json?: unknown } = {}) => {
  const res = await fetch(`${svc.url}${path}`, {
    method: init.method ?? (init.json ? 'POST' : 'GET'),
    headers: { authorization: `Bearer ${key}`, ...(init.json ? { 'content-type': 'application/json' } : {}) },
    body: init.json ? JSON.stringify(init.json) : undefined,
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res;
};
const json = async (path: string, body?: unknown): Promise<any> => (await api(path, body === undefined ? {} : { json: body })).json();
/** Runs a command through the exec NDJSON stream; answers its stdout, throws unless it succeeded. */
async function exec(id: string, command: string): Promise<string> {
  const text = await (await api(`/v1/boxes/${id}/exec`, { json: { command } })).text();
  const { exit, stdout } = readExecStream(text);
  if (exit?.status !== 'succeeded') throw new Error(`exec ${command}: ${text.slice(0, 300)}`);
  return stdout;
}
const terminate = (id: string) => json(`/v1/boxes/${id}/terminate`, {});

const appId = (await json('/v1/apps/find', { name: 'bench', mint_if_missing: true })).id as string;
const rows: Record<string, number[]> = {};
const rec = (k: string, v: number) => (rows[k] ??= []).push(v);
const p50 = (k: string) => med(rows[k] ?? [NaN]);
const out: Record<string, unknown> = { date: new Date().toISOString(), kernel: process.env.BOX_GUEST_KERNEL ?? 'stock', runs: RUNS };

// Warm-up: image build (cached), and the template: a create does not wait for a template
// being built (it cold-boots meanwhile), so the bench waits for it here.
let t = now();
const warm = await json('/v1/boxes', { app_id: appId, name: 'warmup' });
out['warm-up create (image build if not cached; a cold boot while the template builds), s'] = r1((now() - t) / 1000);
out['warm-up create came from'] = warm.last_start?.from;
await terminate(warm.box_id);
await templatesReady(json);
out['template ready after start, s'] = r1((now() - t) / 1000);

if (ONLY.has('boot')) {
  for (let i = 0; i < RUNS; i++) {
    rec('bare boot', await bareBoot(dataDir, i));
    const pooled = await stockReady(json);
    t = now();
    const box = await json('/v1/boxes', { app_id: appId, name: `b${i}` });
    rec('create', now() - t);
    await exec(box.box_id, 'true');
    rec('create → exec ready', now() - t);
    if (!pooled) rec('pool never ready', 1);
    // right after: the pool is being refilled, so this one restores the template itself
    t = now();
    const second = await json('/v1/boxes', { app_id: appId, name: `c${i}` });
    await exec(second.box_id, 'true');
    rec('create → exec ready, pool empty', now() - t);
    await terminate(second.box_id);
    if (!(await stockReady(json, 'restore_spares'))) rec('no spare ready', 1);
    t = now();
    const fork = await json(`/v1/boxes/${box.box_id}/fork`, { name: `f${i}` });
    rec('fork of a running box', now() - t);
    t = now();
    await json(`/v1/boxes/${box.box_id}/pause`, {});
    rec('pause', now() - t);
    await json(`/v1/boxes/${box.box_id}/resume`, {});
    if (!(await stockReady(json, 'restore_spares'))) rec('no spare ready', 1);
    t = now();
    await json(`/v1/boxes/${box.box_id}/sleep`, {});
    rec('sleep', now() - t);
    t = now();
    await json(`/v1/boxes/${box.box_id}/resume`, {});
    rec('resume from sleep', now() - t);
    // right away again: the spare was just taken, this resume starts its own QEMU
    await json(`/v1/boxes/${box.box_id}/sleep`, {});
    t = now();
    await json(`/v1/boxes/${box.box_id}/resume`, {});
    rec('resume from sleep, spare just taken', now() - t);
    for (const b of [box.box_id, fork.boxes[0].box_id]) await terminate(b);
  }
  const bare = p50('bare boot');
  out.boot = {
    'bare QEMU boot to agent HELLO p50, ms (baseline)': r1(bare),
    'warm pool size (BOX_WARM_POOL)': Number(process.env.BOX_WARM_POOL ?? 1),
    'create (API answers) p50, ms': r1(p50('create')),
    'create → exec ready p50, ms': r1(p50('create → exec ready')),
    'create → exec ready / bare boot (goal <= 0.05)': r3(p50('create → exec ready') / bare),
    'create → exec ready with the pool empty (template restore) p50, ms': r1(p50('create → exec ready, pool empty')),
    'create → exec ready, pool empty / bare boot': r3(p50('create → exec ready, pool empty') / bare),
    ...(rows['pool never ready'] ? { 'runs where the pool was not ready': rows['pool never ready'].length } : {}),
    ...(rows['no spare ready'] ? { 'forks or resumes without a restore spare ready': rows['no spare ready'].length } : {}),
    'fork of a running box p50, ms (goal <= 150)': r1(p50('fork of a running box')),
    'fork / bare boot': r3(p50('fork of a running box') / bare),
    'pause p50, ms': r1(p50('pause')),
    'sleep p50, ms': r1(p50('sleep')),
    'resume from sleep p50, ms (goal <= 80)': r1(p50('resume from sleep')),
    'resume from sleep / bare boot': r3(p50('resume from sleep') / bare),
    'resume from sleep right after another restore (no spare ready) p50, ms': r1(p50('resume from sleep, spare just taken')),
  };
}

if (ONLY.has('exec')) {
  const box = await json('/v1/boxes', { app_id: appId, name: 'exec' });
  // The API client is another process (execClient), as a script's or an SDK's would be.
  const client = execClient(dataDir, svc.url, key, box.box_id);
  await client.run(10); // warm caches, the client's connection and JIT
  // Interleave API round trips with in-guest loops so both see the same machine load.
  const apiMs: number[] = [];
  const guestMs: number[] = [];
  // QEMU CPU per command as well: what the guest works per exec, which host load does not
  // inflate the way it inflates wall time (the in-guest loop needs no host wake-ups).
  // the box folder's pid file (a warm-pool clone's command line names the pool folder it started in)
  const pid = livePid(boxFolder(dataDir, box.box_id));
  if (!pid) throw new Error(`no QEMU process found for ${box.box_id}`);
  const cpu = { api: 0, guest: 0 };
  const GUEST_LOOP = 50;
  for (let round = 0; round < 5; round++) {
    let c = qemuCpuMs(pid);
    apiMs.push(...(await client.run(EXECS / 5)).ms);
    cpu.api += qemuCpuMs(pid) - c;
    c = qemuCpuMs(pid);
    // The same command the API ran (`/bin/sh -c true`), started by a shell in the guest.
    // 50 runs a loop: the two `date` processes around it would add ~4 ms / runs to each run
    guestMs.push(Number((await exec(box.box_id, execLoopScript('/bin/sh -c true', GUEST_LOOP))).trim()) / 1e6);
    cpu.guest += qemuCpuMs(pid) - c;
  }
  out.exec = {
    'exec `true` through the API p50 / p95, ms (goal p50 <= 15)': [r1(med(apiMs)), r1(pct(apiMs, 95))],
    'same command in a loop inside the guest, per run p50, ms (baseline)': r1(med(guestMs)),
    'API p50 / in-guest (goal <= 1.3)': r3(med(apiMs) / med(guestMs)),
    'QEMU CPU per command, API / in-guest loop, ms': [r1(cpu.api / EXECS), r1(cpu.guest / (5 * GUEST_LOOP))],
    'QEMU CPU ratio, API / in-guest': r3(cpu.api / EXECS / (cpu.guest / (5 * GUEST_LOOP))),
  };
  client.close();
  await terminate(box.box_id);
}

if (ONLY.has('many')) {
  t = now();
  const many = await Promise.all(Array.from({ length: MANY }, (_, i) => json('/v1/boxes', { app_id: appId, name: `many${i}` })));
  const manyS = (now() - t) / 1000;
  const running = many.filter((b) => b.status === 'running').length;
  await new Promise((r) => setTimeout(r, 15_000)); // let them go idle (boot work, page reporting)
  // Every QEMU of this service (boxes, and templates if any are kept running) divided by
  // the boxes: PSS splits shared pages between the processes that map them.
  const pids = qemuPids(dataDir);
  const pss = sumPssMiB(pids);
  // the same-run baseline: the boot section's bare boots, or one measured here
  const bare = rows['bare boot'] ? p50('bare boot') : await bareBoot(dataDir, 99);
  out.many = {
    [`${MANY} boxes created at once, all running, s (goal <= 10)`]: r1(manyS),
    [`${MANY} at once, all running / bare boot (goal <= 0.35)`]: r3((manyS * 1000) / bare),
    running: `${running}/${MANY}`,
    [`idle PSS per box with ${MANY} idle boxes, MiB (goal <= 40)`]: r1(pss / MANY),
    'QEMU processes counted': pids.length,
  };
  await Promise.all(many.map((b) => terminate(b.box_id)));
}

await svc.close();
await rm(dataDir, { recursive: true, force: true });
// after the main service is closed: each store's service runs alone
if (ONLY.has('store')) out.store = await storeFigures(opt('--store-runs', 5), opt('--reads', 300));
console.log(JSON.stringify(out, null, 2));
