/** Helpers of bench/runtime.ts: statistics, the bare-boot baseline, QEMU memory. */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AgentClient } from '../src-server/platform/guest/agent-client.js';
import { boxFolder, createOverlay } from '../src-server/areas/runtime/box-folder.js';
import { QEMU_BINARY, hostTscKhz } from '../src-server/areas/runtime/qemu/host.js';
import { QemuBoxRuntime } from '../src-server/areas/runtime/qemu-box-runtime.js';
import { qemuArgs } from '../src-server/areas/runtime/qemu/vm-config.js';

export const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
export const med = (xs: number[]) => pct(xs, 50);
export const r1 = (x: number) => Math.round(x * 10) / 10;
export const r3 = (x: number) => Math.round(x * 1000) / 1000;

type GetJson = (path: string) => Promise<any>;

/** Waits until every template of the service is ready (a create does not wait for one being built: it cold-boots meanwhile). */
export async function templatesReady(get: GetJson, timeoutMs = 900_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const { data } = (await get('/v1/templates')) as { data: { state: string }[] };
    if (data.length && data.every((x) => x.state === 'ready')) return;
    if (Date.now() > deadline || data.some((x) => x.state === 'failed')) throw new Error(`templates: ${JSON.stringify(data)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Waits until a template (of `image`, if given) has a warm clone (`warm_clones`) or a restore
 * spare (`restore_spares`) ready (GET /v1/templates): a box created, forked or woken a while
 * after the last one finds it so; back-to-back ones within ~150 ms may not (the spare restarts).
 */
export async function stockReady(get: GetJson, field: 'warm_clones' | 'restore_spares' = 'warm_clones', timeoutMs = 60_000, image?: string): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { data } = (await get('/v1/templates')) as { data: ({ state: string; image: string } & Record<typeof field, number>)[] };
    if (data.some((tpl) => tpl.state === 'ready' && tpl[field] > 0 && (!image || tpl.image === image))) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const runtimes: Record<string, QemuBoxRuntime> = {};

/**
 * Baseline: QEMU started directly (no service, no daemonize) with the same kernel, initrd,
 * disk and machine shape as a box, until the agent's HELLO.
 */
export async function bareBoot(dataDir: string, i: number): Promise<number> {
  // image and accelerator only: with templates on, this second runtime on the service's data
  // dir would clear the service's warm pool and restore spares as a killed service's leftovers
  // (a spare started at that moment outlived the bench)
  const runtime = (runtimes[dataDir] ??= new QemuBoxRuntime(dataDir, { templates: false }));
  const image = await runtime.image();
  const accel = await runtime.accelerator();
  const folder = boxFolder(dataDir, `bare${i}`);
  await mkdir(folder.dir, { recursive: true });
  await createOverlay(folder.disk, image.rootfs, 'raw', 4);
  const config = {
    kernel: image.kernel,
    initrd: image.initrd,
    rootfs: image.rootfs,
    memoryMib: 512,
    vcpus: 1,
    diskGib: 4,
    accel,
    tscKhz: hostTscKhz(),
    hostname: 'bare',
  };
  const args = qemuArgs(folder, config).filter((a) => a !== '-daemonize');
  const t = performance.now();
  const child = spawn(QEMU_BINARY, args, { stdio: 'ignore' });
  const agent = await AgentClient.connect(folder.agentSock, { timeoutMs: 120_000, helloRetryMs: 50 });
  const ms = performance.now() - t;
  agent.close();
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  await rm(folder.dir, { recursive: true, force: true });
  return ms;
}

/** A guest shell loop that runs `cmd` n times and prints the mean nanoseconds per run. */
export const execLoopScript = (cmd: string, n: number) =>
  `i=0; s=$(date +%s%N); while [ $i -lt ${n} ]; do ${cmd}; i=$((i+1)); done; e=$(date +%s%N); echo $(( (e-s)/${n} ))`;

/** QEMU processes whose command line names a path under dataDir (this service's VMs), and `also` if given. */
export function qemuPids(dataDir: string, also = ''): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (cmd.includes('qemu-system') && cmd.includes(dataDir) && cmd.includes(also)) pids.push(Number(d));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** The QEMUs of the service's boxes (their folders' qemu.pid): not the warm-pool clones and restore spares waiting for a box. */
export function boxQemuPids(dataDir: string): number[] {
  const pids: number[] = [];
  for (const id of existsSync(join(dataDir, 'boxes')) ? readdirSync(join(dataDir, 'boxes')) : []) {
    try {
      const pid = Number(readFileSync(join(dataDir, 'boxes', id, 'qemu.pid'), 'utf8').trim());
      if (pid && existsSync(`/proc/${pid}`)) pids.push(pid);
    } catch {
      // no VM (stopped, or terminated meanwhile)
    }
  }
  return pids;
}

export function sumPssMiB(pids: number[]): number {
  let kib = 0;
  for (const pid of pids) {
    try {
      kib += Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))![1]);
    } catch {
      // exited meanwhile
    }
  }
  return kib / 1024;
}

/**
 * PSS of QEMU processes by what holds it, MiB: the guest's RAM (the mapped RAM file of the
 * template or box), TCG's translated code (the anonymous rwx buffer, `tb-size`; none under
 * KVM) and QEMU itself (heap, libraries, device state).
 */
export function pssSplitMiB(pids: number[]): { guest: number; tcg: number; qemu: number } {
  const kib = { guest: 0, tcg: 0, qemu: 0 };
  for (const pid of pids) {
    let smaps: string;
    try {
      smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    let kind: keyof typeof kib = 'qemu';
    for (const line of smaps.split('\n')) {
      const head = /^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
      if (head) kind = /\/ram( \(deleted\))?$/.test(head[3]!) ? 'guest' : head[2] === '0' && head[1] === 'rwxp' ? 'tcg' : 'qemu';
      else if (line.startsWith('Pss:')) kib[kind] += Number(/\d+/.exec(line)![0]);
    }
  }
  return { guest: kib.guest / 1024, tcg: kib.tcg / 1024, qemu: kib.qemu / 1024 };
}

/** User + system CPU time of a process (all threads), ms (clock ticks of 10 ms). */
/** A process's minor page faults so far (all threads): for QEMU, host faults on guest RAM among them. */
export function minorFaults(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[7]);
}

export function qemuCpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

/** The exec client of execClient: node:http, one kept-alive connection; reads `n<TAB>command` lines, answers a JSON line each. */
const EXEC_CLIENT = `
const http = require('node:http');
const readline = require('node:readline');
const [url, key, boxId] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const one = (body) => new Promise((resolve, reject) => {
  const t = performance.now();
  const req = http.request(url + '/v1/boxes/' + boxId + '/exec', { method: 'POST', agent,
    headers: { authorization: 'Bearer ' + key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c) => (text += c));
    res.on('end', () => {
      const exit = text.trim().split('\\n').map((l) => JSON.parse(l)).find((e) => e.type === 'exit');
      if (!exit || exit.status !== 'succeeded') return reject(new Error(text.slice(0, 300)));
      const out = text.trim().split('\\n').map((l) => JSON.parse(l)).filter((e) => e.type === 'stdout').map((e) => Buffer.from(e.data, 'base64').toString()).join('');
      resolve([performance.now() - t, out]);
    });
  });
  req.on('error', reject);
  req.end(body);
});
(async () => {
  for await (const line of readline.createInterface({ input: process.stdin })) {
    const [n, command] = line.split('\\t');
    const body = JSON.stringify({ command });
    const ms = [];
    let out = '';
    for (let i = 0; i < Number(n); i++) { const [t, o] = await one(body); ms.push(t); out = o; }
    process.stdout.write(JSON.stringify({ ms, out }) + '\\n');
  }
})().catch((e) => { console.error(e); process.exit(1); });
`;

/**
 * An exec client in another process, as a script or an SDK would call the API: node:http
 * with one kept-alive connection, kept warm between batches (a fetch in the bench's own
 * process would run the client's work on the service's event loop, between its own; a
 * fresh process per batch would time its own JIT warm-up). `run(n)` answers each exec's ms
 * and the last exec's stdout. The first batch should be an untimed warm-up.
 */
export function execClient(dir: string, url: string, key: string, boxId: string) {
  const file = join(dir, 'exec-client.cjs');
  if (!existsSync(file)) writeFileSync(file, EXEC_CLIENT);
  const c = spawn(process.execPath, [file, url, key, boxId], { stdio: ['pipe', 'pipe', 'inherit'] });
  let text = '';
  let waiting: ((v: { ms: number[]; out: string }) => void) | undefined;
  let failed: ((e: Error) => void) | undefined;
  c.stdout.on('data', (d: Buffer) => {
    text += d;
    const nl = text.indexOf('\n');
    if (nl < 0) return;
    const line = text.slice(0, nl);
    text = text.slice(nl + 1);
    waiting?.(JSON.parse(line) as { ms: number[]; out: string });
  });
  c.on('exit', (code) => failed?.(new Error(`exec client exited ${code}`)));
  return {
    run: (n: number, command = 'true') =>
      new Promise<{ ms: number[]; out: string }>((resolve, reject) => {
        waiting = resolve;
        failed = reject;
        c.stdin.write(`${n}\t${command.replace(/[\t\n]/g, ' ')}\n`);
      }),
    close: () => c.stdin.end(),
  };
}
