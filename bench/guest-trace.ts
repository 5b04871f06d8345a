/**
 * `npx tsx bench/guest-trace.ts [--execs 20] [--cpu-execs 300] [--top 25]`: does the guest
 * WORK more for an exec through the API than for the same command in a loop inside it, or
 * does it run the same work slower? One box, two measurements of each path:
 *   - QEMU's per-thread CPU per command (vCPU thread and the rest), no tracing;
 *   - QEMU's own execution trace (`log exec,nochain` over the auxiliary QMP monitor): every
 *     translated block the guest runs, counted by guest address, kernel addresses named from
 *     the guest's /proc/kallsyms (the guest kernel runs without KASLR), user space counted
 *     as one bucket. Counts are blocks, not time: they measure work, whatever the speed.
 * The trace makes the guest ~100x slower, so timer-tick work is inflated equally in both.
 * Used for the exec-ratio analysis (BENCHMARKS.md, "Exec"; docs/benchmarks-history.md,
 * "Wave 8 (2026-11-24 12:10-12:40 UTC): the guest does the same work for an API exec, slower").
 */
import { createReadStream, readdirSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { boxFolder, livePid } from '../src-server/areas/runtime/box-folder.js';
import { QmpClient } from '../src-server/areas/runtime/qemu/qmp.js';
import { startService } from '../src-server/service.js';
import { readExecStream } from '../src-server/test-support/exec-stream.js';
import { execClient, execLoopScript, r1 } from './runtime-support.js';

const argv = process.argv.slice(2);
const opt = (name: string, def: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : def);
const N = opt('--execs', 20);
const CPU_N = opt('--cpu-execs', 300);
const TOP = opt('--top', 25);

process.env.BOX_IMAGE_CACHE ??= join(tmpdir(), 'box-image-cache');
const dataDir = await mkdtemp(join(tmpdir(), 'bxt-'));
const key = `bxk_bench_${randomBytes(8).toString('hex')}`;
const svc = await startService({ dataDir, apiKey: key, log: { info() {}, warn() {}, error: console.error } });
const post = async (path: string, body: unknown) => {
  const res = await fetch(`${svc.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res;
};
const appId = ((await (await post('/v1/apps/find', { name: 'bench', mint_if_missing: true })).json()) as { id: string }).id;
const box = ((await (await post('/v1/boxes', { app_id: appId, name: 'guest-trace' })).json()) as { box_id: string }).box_id;
const folder = boxFolder(dataDir, box);
const qemu = livePid(folder)!;
/** stdout of a shell command run in the box (NDJSON exec stream). */
const sh = async (command: string) => readExecStream(await (await post(`/v1/boxes/${box}/exec`, { command })).text()).stdout;
const api = execClient(dataDir, svc.url, key, box);
const loop = (n: number) => sh(execLoopScript('/bin/sh -c true', n));

/** CPU ms per QEMU thread: the vCPU thread is the busiest one. */
const threadCpu = () => {
  const out = new Map<string, number>();
  for (const t of readdirSync(`/proc/${qemu}/task`)) {
    const st = readFileSync(`/proc/${qemu}/task/${t}/stat`, 'utf8');
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    out.set(t, (Number(f[11]) + Number(f[12])) * 10);
  }
  return out;
};
async function cpuPer(n: number, run: () => Promise<unknown>) {
  const a = threadCpu();
  const t = performance.now();
  await run();
  const wall = performance.now() - t;
  const b = threadCpu();
  const d = [...b].map(([k, v]) => v - (a.get(k) ?? 0)).sort((x, y) => y - x);
  return {
    wall_ms: r1(wall / n),
    vcpu_ms: Math.round((d[0]! / n) * 100) / 100,
    other_threads_ms: Math.round((d.slice(1).reduce((s, x) => s + x, 0) / n) * 100) / 100,
  };
}

// Kernel symbols from the guest itself (text symbols only, sorted).
const syms = (await sh('cat /proc/kallsyms'))
  .split('\n')
  .map((l) => l.split(' '))
  .filter((p) => p.length >= 3 && /^[tTwW]$/.test(p[1]!) && p[0]!.startsWith('ffffffff'))
  .map((p) => ({ at: BigInt(`0x${p[0]}`), name: p[2]! }))
  .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
const KERNEL = 0xffffffff80000000n;
const symbolOf = (pc: bigint) => {
  let lo = 0;
  let hi = syms.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (syms[mid]!.at <= pc) lo = mid;
    else hi = mid - 1;
  }
  return syms[lo]?.name ?? '?';
};

async function traced(name: string, run: () => Promise<unknown>) {
  const file = join(dataDir, `trace-${name}.log`);
  const qmp = await QmpClient.connect(folder.qmpAuxSock);
  const hmp = (line: string) => qmp.execute('human-monitor-command', { 'command-line': line });
  await hmp(`logfile ${file}`);
  await hmp('log exec,nochain');
  try {
    await run();
  } finally {
    await hmp('log none');
    qmp.close();
  }
  // "Trace N: host [cs_base/pc/flags/cflags] ...": one line per translated block run.
  const byPc = new Map<string, number>();
  for await (const line of createInterface({ input: createReadStream(file) })) {
    const i = line.indexOf('[');
    if (!line.startsWith('Trace') || i < 0) continue;
    const pc = line.slice(i + 18, i + 34);
    byPc.set(pc, (byPc.get(pc) ?? 0) + 1);
  }
  rmSync(file);
  const bySym = new Map<string, number>();
  let total = 0;
  for (const [pc, c] of byPc) {
    total += c;
    const at = BigInt(`0x${pc}`);
    const s = at >= KERNEL ? symbolOf(at) : '(user space)';
    bySym.set(s, (bySym.get(s) ?? 0) + c);
  }
  return { total, bySym };
}

await api.run(20); // warm: translation cache, the client's connection
await loop(20);

const cpu = { api: await cpuPer(CPU_N, () => api.run(CPU_N)), loop: await cpuPer(CPU_N, () => loop(CPU_N)) };
const tApi = await traced('api', () => api.run(N));
const tLoop = await traced('loop', () => loop(N));
const per = (m: Map<string, number>, s: string) => Math.round((m.get(s) ?? 0) / N);
const names = [...new Set([...tApi.bySym.keys(), ...tLoop.bySym.keys()])];
const top = names
  .map((s) => ({ s, api: per(tApi.bySym, s), loop: per(tLoop.bySym, s) }))
  .sort((a, b) => b.api + b.loop - (a.api + a.loop))
  .slice(0, TOP);
console.log(
  JSON.stringify(
    {
      'QEMU CPU per command, no tracing': cpu,
      'vCPU CPU per command, API / loop': Math.round((cpu.api.vcpu_ms / cpu.loop.vcpu_ms) * 1000) / 1000,
      'translated blocks run per command (traced)': { api: Math.round(tApi.total / N), loop: Math.round(tLoop.total / N) },
      'blocks per command, API / loop': Math.round((tApi.total / tLoop.total) * 1000) / 1000,
      [`top ${TOP} guest functions, blocks per command (api, loop)`]: Object.fromEntries(top.map((r) => [r.s, [r.api, r.loop]])),
      note: `the loop's exec (one API call and two date processes per ${N} runs) is counted in the loop`,
    },
    null,
    2,
  ),
);
api.close();
await post(`/v1/boxes/${box}/terminate`, {});
await svc.close();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
