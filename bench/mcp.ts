/**
 * `npm run bench:mcp [-- --execs 300]`: what MCP adds to a command (issue 26 figure: MCP
 * `box_exec` of `true`, added over the HTTP API, p50 < 2 ms). One real service, one real
 * box, and in the same run, round-robin so drift and noise fall on every column alike:
 *   http:        POST /v1/boxes/{id}/exec through the HTTP API (fetch, NDJSON read to the exit);
 *   mcp-http:    box_exec over streamable HTTP at /mcp (the official SDK's client);
 *   mcp-stdio:   box_exec over stdio through `box mcp` (spawned as a desktop host does);
 *   mcp-by-name: box_exec over /mcp with the box's name instead of its id (one lookup more).
 * "added" is the median of the per-round differences against the http column, and the
 * difference of the p50s; both are printed. On a loaded 2-core machine every millisecond
 * there is several of wall time, so the CPU each column spends per exec (this process: client
 * and service; `box mcp` and its children) is printed too: the same cost, load or not.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startService } from '../src-server/service.js';
import { readExecStream } from '../src-server/test-support/exec-stream.js';
import { med, pct, r3 } from './runtime-support.js';

const argv = process.argv.slice(2);
const EXECS = argv.includes('--execs') ? Number(argv[argv.indexOf('--execs') + 1]) : 300;
const ROOT = resolve(import.meta.dirname, '..');

process.env.BOX_IMAGE_CACHE ??= join(tmpdir(), 'box-image-cache');
const dataDir = await mkdtemp(join(tmpdir(), 'bxmcpb-'));
const key = `bxk_bench_${randomBytes(8).toString('hex')}`;
const svc = await startService({ dataDir, apiKey: key, log: { info() {}, warn() {}, error: console.error } });
const auth = { authorization: `Bearer ${key}` };

async function post(path: string, body: unknown): Promise<any> {
  const res = await fetch(`${svc.url}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res;
}
const appId = (await (await post('/v1/apps/find', { name: 'bench', mint_if_missing: true })).json()).id as string;
const box = (await (await post('/v1/boxes', { app_id: appId, name: 'mcp-bench' })).json()) as { box_id: string; name: string };

const http = new Client({ name: 'bench-http', version: '1' });
await http.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers: auth } }));
const stdio = new Client({ name: 'bench-stdio', version: '1' });
const stdioTransport = new StdioClientTransport({
  command: process.execPath,
  args: [join(ROOT, 'bin', 'box.mjs'), 'mcp'],
  env: { PATH: process.env.PATH!, HOME: process.env.HOME!, BOX_URL: svc.url, BOX_API_KEY: key, BOX_DATA_DIR: dataDir },
  stderr: 'ignore',
});
await stdio.connect(stdioTransport);

async function apiExec() {
  const text = await (await post(`/v1/boxes/${box.box_id}/exec`, { command: 'true' })).text();
  if (readExecStream(text).exit?.status !== 'succeeded') throw new Error(`exec: ${text.slice(0, 300)}`);
}
async function mcpExec(c: Client, ref: string) {
  const r = (await c.callTool({ name: 'box_exec', arguments: { box: ref, command: 'true' } })) as CallToolResult;
  if (r.isError || (r.structuredContent as { exit_code: number }).exit_code !== 0) throw new Error(`box_exec: ${JSON.stringify(r.content)}`);
}

const columns: Record<string, () => Promise<void>> = {
  http: apiExec,
  'mcp-http': () => mcpExec(http, box.box_id),
  'mcp-stdio': () => mcpExec(stdio, box.box_id),
  'mcp-by-name': () => mcpExec(http, box.name),
};
const ms: Record<string, number[]> = Object.fromEntries(Object.keys(columns).map((k) => [k, []]));
/**
 * CPU time (ms) each column spends on this machine's cores, load or not: this process (the
 * client and the in-process service) plus `box mcp` (bin/box.mjs, one process) and any children.
 * QEMU's is left out: the guest runs the same `true` for every column.
 */
const cpu: Record<string, number> = Object.fromEntries(Object.keys(columns).map((k) => [k, 0]));
const TICK_MS = 10; // USER_HZ is 100 on Linux
function treeCpuMs(pid: number | null): number {
  if (!pid) return 0;
  let total = 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    total += (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    for (const k of kids) total += treeCpuMs(Number(k));
  } catch {
    // gone: counts nothing more
  }
  return total;
}
const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
for (let i = 0; i < 20; i++) for (const run of Object.values(columns)) await run(); // warm-up
const names = Object.keys(columns);
for (let i = 0; i < EXECS; i++) {
  const order = names.map((_, j) => names[(i + j) % names.length]!); // rotate who goes first
  for (const name of order) {
    const c0 = ownCpuMs() + treeCpuMs(stdioTransport.pid);
    const t = performance.now();
    await columns[name]!();
    ms[name]!.push(performance.now() - t);
    cpu[name]! += ownCpuMs() + treeCpuMs(stdioTransport.pid) - c0;
  }
}

const out: Record<string, unknown> = { date: new Date().toISOString(), execs: EXECS, 'load average (1, 5, 15 min)': loadavg().map(r3) };
for (const name of names) {
  out[`${name} exec \`true\` p50, ms`] = r3(med(ms[name]!));
  out[`${name} p90, ms`] = r3(pct(ms[name]!, 90));
}
for (const name of names.filter((n) => n !== 'http')) {
  const diffs = ms[name]!.map((v, i) => v - ms.http![i]!);
  out[`${name}: added over http, median of per-round differences, ms`] = r3(med(diffs));
  out[`${name}: added over http, p50 - p50, ms`] = r3(med(ms[name]!) - med(ms.http!));
}
for (const name of names) out[`${name}: CPU per exec (service + client + box mcp), ms`] = r3(cpu[name]! / EXECS);
for (const name of names.filter((n) => n !== 'http')) out[`${name}: CPU added over http per exec, ms`] = r3((cpu[name]! - cpu.http!) / EXECS);
out['goal: mcp added p50 < 2 ms'] = ['mcp-http', 'mcp-stdio'].every((n) => med(ms[n]!) - med(ms.http!) < 2) ? 'met' : 'NOT met';
console.log(JSON.stringify(out, null, 2));

await http.close();
await stdio.close();
await post(`/v1/boxes/${box.box_id}/terminate`, {});
await svc.close();
