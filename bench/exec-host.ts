/**
 * `npx tsx bench/exec-host.ts [--execs 100] [--prof out.cpuprofile] [--strace]`: what the
 * HOST spends per `POST /v1/boxes/:id/exec` of `true`, with figures host load barely moves:
 *   - the service process's CPU per exec (process.cpuUsage; the client runs in another
 *     process, a plain node:http keep-alive loop, so none of its work is counted),
 *   - QEMU's CPU per exec (what the guest works),
 *   - with --strace: the service's system calls per exec (strace -c on this process's threads),
 *   - with --prof: a V8 CPU profile of the service during the loop, and its top self times.
 * Wall p50 is printed with the 1-minute load beside it; compare it only in a quiet window.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { boxFolder, livePid } from '../src-server/areas/runtime/box-folder.js';
import { startService } from '../src-server/service.js';
import { execClient, execLoopScript, med, minorFaults, qemuCpuMs, qemuPids, r1 } from './runtime-support.js';
import diagnostics from 'node:diagnostics_channel';
import { AgentClient } from '../src-server/platform/guest/agent-client.js';
import { AgentExec } from '../src-server/platform/guest/agent-exec.js';
import { M } from '../src-server/platform/guest/protocol.js';
import Database from 'better-sqlite3';

const argv = process.argv.slice(2);
const opt = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const EXECS = Number(opt('--execs') ?? 100);
const PROF = opt('--prof');
const r2 = (x: number) => Math.round(x * 100) / 100;

process.env.BOX_IMAGE_CACHE ??= join(tmpdir(), 'box-image-cache');
const dataDir = await mkdtemp(join(tmpdir(), 'bxh-'));
const key = `bxk_bench_${randomBytes(8).toString('hex')}`;
const svc = await startService({ dataDir, apiKey: key, log: { info() {}, warn() {}, error: console.error } });
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
const post = async (path: string, body: unknown) => {
  const res = await fetch(`${svc.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res;
};
const appId = ((await (await post('/v1/apps/find', { name: 'bench', mint_if_missing: true })).json()) as { id: string }).id;
const box = (await (await post('/v1/boxes', { app_id: appId, name: 'exec-host' })).json()) as { box_id: string };
const qemu = livePid(boxFolder(dataDir, box.box_id))!;

const execs = execClient(dataDir, svc.url, key, box.box_id);
const client = (n: number, command = 'true') => execs.run(n, command);

// Where each exec's wall time goes, from the service's side: request start → EXEC frame
// written (host, before the guest can start) → EXIT frame read (guest and transport) →
// response finished (host, after). Only the first and last are the host's critical path.
const marks = { pre: [] as number[], guest: [] as number[], post: [] as number[], toEnd: [] as number[], toStart: [] as number[], other: 0 };
let marking = false;
// one request at a time (the client's loop): the EXEC sent while it is open is its exec
let open: { req: number; stream?: number; exec?: number; exit?: number } | undefined;
const { ServerResponse } = await import('node:http');
const end = ServerResponse.prototype.end;
ServerResponse.prototype.end = function (this: InstanceType<typeof ServerResponse>, ...a: unknown[]) {
  if (open?.exit !== undefined) marks.toEnd.push(performance.now() - open.exit);
  return (end as (...x: unknown[]) => InstanceType<typeof ServerResponse>).apply(this, a);
} as typeof end;
const { ExecService } = await import('../src-server/areas/boxes/exec-service.js');
const start = ExecService.prototype.start;
ExecService.prototype.start = function (this: InstanceType<typeof ExecService>, ...a: Parameters<typeof start>) {
  if (open) marks.toStart.push(performance.now() - open.req);
  return start.apply(this, a);
};
diagnostics.subscribe('http.server.request.start', () => {
  if (marking) open = { req: performance.now() };
});
diagnostics.subscribe('http.server.response.finish', () => {
  if (open?.exit !== undefined) marks.post.push(performance.now() - open.exit);
  open = undefined;
});
const sendControl = AgentClient.prototype.sendControl;
AgentClient.prototype.sendControl = function (this: AgentClient, type, flags, stream, payload) {
  if (type === M.EXEC && open && open.exec === undefined) {
    open.exec = performance.now();
    open.stream = stream;
    marks.pre.push(open.exec - open.req);
  } else if (type === M.EXEC && marking) marks.other++;
  return sendControl.call(this, type, flags, stream, payload);
};
const onFrame = AgentExec.prototype.onFrame;
AgentExec.prototype.onFrame = function (this: AgentExec, f) {
  if (f.type === M.EXIT && open?.stream === f.stream) {
    open.exit = performance.now();
    marks.guest.push(open.exit - open.exec!);
  }
  return onFrame.call(this, f);
};
await client(10); // warm: translation cache, JIT, statements
// --sql: counts the SQLite statements the service runs per exec, by text.
const sql = new Map<string, number>();
if (argv.includes('--sql')) {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  probe.close();
  for (const m of ['run', 'get', 'all', 'iterate']) {
    const orig = proto[m]!;
    proto[m] = function (this: { source: string }, ...a: unknown[]) {
      sql.set(`${m} ${this.source.replace(/\s+/g, ' ').slice(0, 110)}`, (sql.get(`${m} ${this.source.replace(/\s+/g, ' ').slice(0, 110)}`) ?? 0) + 1);
      return orig.apply(this, a);
    };
  }
}
const strace = argv.includes('--strace')
  ? spawn(
      'strace',
      [
        ...(process.env.STRACE_ARGS ?? '-c').split(' '),
        '-q',
        ...readdirSync('/proc/self/task').flatMap((tid) => ['-p', tid]),
        '-o',
        process.env.STRACE_OUT ?? join(dataDir, 'strace.txt'),
      ],
      { stdio: 'ignore' },
    )
  : undefined;
if (strace) await new Promise((r) => setTimeout(r, 500));
let session: Session | undefined;
if (PROF) {
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
}
const load = loadavg()[0]!;
marking = true;
const cpu0 = process.cpuUsage();
const q0 = qemuCpuMs(qemu);
const f0 = minorFaults(qemu);
const { ms } = await client(EXECS);
const faults = (minorFaults(qemu) - f0) / EXECS;
marking = false;
const sqlCounts = Object.fromEntries([...sql.entries()].map(([k, v]) => [k, r2(v / EXECS)]));
const cpu = process.cpuUsage(cpu0);
const qemuMs = qemuCpuMs(qemu) - q0;
if (session) {
  const { profile } = await session.post('Profiler.stop');
  await writeFile(PROF!, JSON.stringify(profile));
  session.disconnect();
}
if (strace) {
  strace.kill('SIGINT');
  await new Promise((r) => strace.once('exit', r));
}
// baseline: the same command in a loop in the guest
const LOOP = 50;
const q1 = qemuCpuMs(qemu);
const f1 = minorFaults(qemu);
const loop = await client(1, execLoopScript('/bin/sh -c true', LOOP));
const guestQemuMs = (qemuCpuMs(qemu) - q1) / LOOP;
const guestMs = Number(loop.out.trim()) / 1e6;
const guestFaults = (minorFaults(qemu) - f1) / LOOP;

const out: Record<string, unknown> = {
  execs: EXECS,
  'load (1 min)': r2(load),
  'API wall p50, ms': r2(med(ms)),
  'in-guest loop per run, ms': r2(guestMs),
  'API p50 / in-guest': r2(med(ms) / guestMs),
  'service CPU per exec, ms (user + system)': [r2((cpu.user + cpu.system) / 1000 / EXECS), r2(cpu.user / 1000 / EXECS), r2(cpu.system / 1000 / EXECS)],
  'wall p50s, ms: request → EXEC sent (host) / EXEC → EXIT read (guest) / EXIT → response end (host)': [
    r2(med(marks.pre)),
    r2(med(marks.guest)),
    r2(med(marks.post)),
  ],
  'wall p50s, ms: request → ExecService.start / EXIT → res.end() called': [r2(med(marks.toStart)), r2(med(marks.toEnd))],
  'other execs the service ran meanwhile': marks.other,
  'QEMU CPU per exec, ms: API / in-guest loop': [r2(qemuMs / EXECS), r2(guestQemuMs)],
  'QEMU minor page faults per exec: API / in-guest loop': [r1(faults), r1(guestFaults)],
};
if (sql.size) out['SQL statements per exec'] = sqlCounts;
if (strace) {
  const text = await readFile(process.env.STRACE_OUT ?? join(dataDir, 'strace.txt'), 'utf8');
  const calls: Record<string, number> = {};
  for (const m of text.matchAll(/^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$/gm)) calls[m[2]!] = r2(Number(m[1]) / EXECS);
  out['service syscalls per exec'] = calls;
  if (argv.includes('--strace-table')) console.log(text.slice(0, 20000));
}
if (PROF) {
  const prof = JSON.parse(await readFile(PROF, 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  prof.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    const k = `${f.functionName || '(anon)'} ${f.url.replace(/^.*\/(node_modules|src-server)\//, '$1/')}:${f.lineNumber + 1}`;
    self.set(k, (self.get(k) ?? 0) + (prof.timeDeltas[i] ?? 0));
  });
  out['top self time per exec, µs'] = Object.fromEntries(
    [...self.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 40)
      .map(([k, v]) => [k, r1(v / EXECS)]),
  );
}
console.log(JSON.stringify(out, null, 2));
execs.close();
await svc.close();
// boxes outlive a closed service (on purpose); the warm pool's clones included: end ours
for (const pid of qemuPids(dataDir)) process.kill(pid, 'SIGKILL');
await rm(dataDir, { recursive: true, force: true });
