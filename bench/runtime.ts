/**
 * `npm run bench:runtime [-- --runs 5 --many 32]`: box runtime figures measured through the
 * HTTP API of a real service, each reported with the baseline measured in the same run
 * (bare QEMU boot of the same kernel + initrd + disk to the agent's first message).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentClient } from '../src-server/guest/agent-client.js';
import { boxFolder, createOverlay } from '../src-server/runtime/box-folder.js';
import { QEMU_BINARY } from '../src-server/runtime/host.js';
import { QemuBoxRuntime } from '../src-server/runtime/qemu-box-runtime.js';
import { qemuArgs } from '../src-server/runtime/vm-config.js';
import { startService } from '../src-server/service.js';

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : def);
const RUNS = opt('--runs', 5);
const MANY = opt('--many', 32);
const now = () => performance.now();
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
const med = (xs: number[]) => pct(xs, 50);
const r1 = (x: number) => Math.round(x * 10) / 10;

process.env.BOX_IMAGE_CACHE ??= join(tmpdir(), 'box-image-cache');
const dataDir = await mkdtemp(join(tmpdir(), 'bxb-'));
const key = `bxk_bench_${randomBytes(8).toString('hex')}`;
const svc = await startService({ dataDir, apiKey: key, log: { info() {}, warn() {}, error: console.error } });
const api = async (path: string, init: { method?: string; json?: unknown; body?: BodyInit } = {}) => {
  const res = await fetch(`${svc.url}${path}`, {
    method: init.method ?? (init.json || init.body ? 'POST' : 'GET'),
    headers: { authorization: `Bearer ${key}`, ...(init.json ? { 'content-type': 'application/json' } : {}) },
    body: init.json ? JSON.stringify(init.json) : init.body,
    duplex: 'half',
  } as RequestInit);
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res;
};
const json = async (path: string, body?: unknown) => (await api(path, body === undefined ? {} : { json: body })).json();
const exec = async (id: string, command: string) => (await api(`/v1/boxes/${id}/exec`, { json: { command } })).text();

// Image build (cached after the first run) and the bare-boot baseline with the same files.
const runtime = new QemuBoxRuntime(dataDir);
const image = await runtime.image();
const accel = await runtime.accelerator();
async function bareBoot(i: number): Promise<number> {
  const folder = boxFolder(dataDir, `bare${i}`);
  await mkdir(folder.dir, { recursive: true });
  await createOverlay(folder.disk, image.rootfs, 'raw', 4);
  const config = { kernel: image.kernel, initrd: image.initrd, rootfs: image.rootfs, memoryMib: 512, vcpus: 1, diskGib: 4, accel: accel as 'tcg', tscKhz: (await import('../src-server/runtime/host.js')).hostTscKhz(), hostname: 'bare' };
  const args = qemuArgs(folder, config).filter((a) => a !== '-daemonize');
  const t = now();
  const child = spawn(QEMU_BINARY, args, { stdio: 'ignore' });
  const agent = await AgentClient.connect(folder.agentSock, { timeoutMs: 120_000, helloRetryMs: 100 });
  const ms = now() - t;
  agent.close();
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  await rm(folder.dir, { recursive: true, force: true });
  return ms;
}

const appId = (await json('/v1/apps/find', { name: 'bench', mint_if_missing: true })).id;
const rows: Record<string, number[]> = {};
const rec = (k: string, v: number) => (rows[k] ??= []).push(v);

for (let i = 0; i < RUNS; i++) {
  rec('bare QEMU boot to agent HELLO', await bareBoot(i));
  let t = now();
  const box = await json('/v1/boxes', { app_id: appId, name: `b${i}` });
  rec('box create to exec ready (API)', now() - t);
  t = now();
  await json(`/v1/boxes/${box.box_id}/pause`, {});
  rec('pause (API)', now() - t);
  t = now();
  await json(`/v1/boxes/${box.box_id}/resume`, {});
  rec('resume from pause (API)', now() - t);
  t = now();
  await json(`/v1/boxes/${box.box_id}/sleep`, {});
  rec('sleep (API)', now() - t);
  t = now();
  await json(`/v1/boxes/${box.box_id}/resume`, {});
  rec('resume from sleep (API)', now() - t);
  t = now();
  const fork = await json(`/v1/boxes/${box.box_id}/fork`, { name: `f${i}` });
  rec('fork of a running box (API)', now() - t);
  for (const b of [box.box_id, fork.boxes[0].box_id]) await json(`/v1/boxes/${b}/terminate`, {});
}

// Exec round trips, file throughput and idle memory on one box.
const box = await json('/v1/boxes', { app_id: appId, name: 'steady' });
const execMs: number[] = [];
for (let i = 0; i < 100; i++) {
  const t = now();
  await exec(box.box_id, 'true');
  execMs.push(now() - t);
}
const data = randomBytes(100 * 1024 * 1024);
let t = now();
await api(`/v1/boxes/${box.box_id}/files?path=/root/bench-100m.bin`, { method: 'PUT', body: data });
const putMBs = 100 / ((now() - t) / 1000);
t = now();
const got = Buffer.from(await (await api(`/v1/boxes/${box.box_id}/files?path=/root/bench-100m.bin`)).arrayBuffer());
const getMBs = 100 / ((now() - t) / 1000);
if (!got.equals(data)) throw new Error('file round trip differs');
await exec(box.box_id, 'rm /root/bench-100m.bin');
await new Promise((r) => setTimeout(r, 10_000));
const pid = Number(await readFile(join(dataDir, 'boxes', box.box_id, 'qemu.pid'), 'utf8'));
const pssMiB = Number(/^Pss:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/smaps_rollup`, 'utf8'))![1]) / 1024;
await json(`/v1/boxes/${box.box_id}/terminate`, {});

// Many boxes at once.
t = now();
const many = await Promise.all(Array.from({ length: MANY }, (_, i) => json('/v1/boxes', { app_id: appId, name: `many${i}` })));
const manyMs = now() - t;
const manyOk = many.filter((b) => b.status === 'running').length;
await Promise.all(many.map((b) => json(`/v1/boxes/${b.box_id}/terminate`, {})));

const bare = med(rows['bare QEMU boot to agent HELLO']!);
const create = med(rows['box create to exec ready (API)']!);
const out = {
  accelerator: accel,
  runs: RUNS,
  medians_ms: Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, r1(med(v))])),
  ratios: {
    'create / bare boot (goal <= 1.15)': Math.round((create / bare) * 1000) / 1000,
    'resume from sleep / create (goal <= 0.1)': Math.round((med(rows['resume from sleep (API)']!) / create) * 1000) / 1000,
    'fork / create (goal <= 0.2)': Math.round((med(rows['fork of a running box (API)']!) / create) * 1000) / 1000,
  },
  exec_round_trip_ms: { p50: r1(med(execMs)), p95: r1(pct(execMs, 95)), 'goal p50': '< 5' },
  pause_p50_ms: r1(med(rows['pause (API)']!)),
  file_100MB: { put_MBps: r1(putMBs), get_MBps: r1(getMBs) },
  idle_box_pss_MiB: r1(pssMiB),
  [`${MANY} boxes created at once`]: { total_s: r1(manyMs / 1000), running: manyOk },
};
console.log(JSON.stringify(out, null, 2));
await svc.close();
await rm(dataDir, { recursive: true, force: true });
