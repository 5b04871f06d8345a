// `npm run bench:inference`: gateway overhead against calling the same loopback
// OpenAI-compatible upstream directly (latency p50/p95, throughput at concurrency 16),
// and tokens/s of the embedded engine on the generated tiny model. The upstream and the
// gateway each run in their own process; this process is the client. Each process's CPU
// time (Linux /proc) is read around the throughput runs, so the gateway's own CPU per
// request is reported beside the client's and upstream's: a figure that, unlike wall-clock
// ratios, barely moves with the load other sessions put on the machine.
// BENCH_GATEWAY_PROF=<dir> runs the gateway process under `--cpu-prof` (profile in <dir>).
// A third path goes through a bare pass-through proxy (plain node:http, keep-alive agent, no
// auth, no parsing) in its own process: the floor any gateway in between pays on this
// machine for the extra hop, measured in the same run as the gateway.
// WebSocket mode: a WebSocket turn against an HTTP streamed turn, same request (inference-ws.ts).
// Embeddings: the gateway against node-llama-cpp alone on the tiny model (inference-embed.ts).
// `--only=websocket,embeddings` runs just those parts.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs, measureEmbeddedVsBare, measureStreaming, PACE_MS } from './inference-stream.js';
import { measureEmbeddingsVsBare } from './inference-embed.js';
import { measureWsVsHttp } from './inference-ws.js';

const KEY = 'bxk_bench_key_000000000000000000000000000';
/** A second upstream answers after this long, like a real model server would. */
const SLOW_UPSTREAM_MS = 20;
/** Concurrent load on each path before anything is measured (per scenario). */
const WARMUP_MS = 4000;
const role = process.argv.find((a) => a.startsWith('--role='))?.slice(7);
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');

function child(r: string, env: Record<string, string> = {}): Promise<{ proc: ChildProcess; info: { url: string; dataDir?: string } }> {
  const prof = r === 'gateway' && process.env.BENCH_GATEWAY_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_GATEWAY_PROF}`] : [];
  const proc = spawn(process.execPath, [...process.execArgv, ...prof, fileURLToPath(import.meta.url), `--role=${r}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    proc.stdout!.on('data', (c) => {
      buf += c;
      const line = buf.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ proc, info: JSON.parse(line) });
    });
    proc.on('exit', (code) => reject(new Error(`${r} exited with ${code}`)));
  });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** CPU ms per request of each process over one throughput run. */
async function withCpu(pids: Record<string, number | undefined>, run: () => Promise<number>, ms: number) {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid)]));
  const rps = await run();
  const n = rps * (ms / 1000);
  const perReq = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, Math.round(((cpuMs(pid) - before[k]!) / n) * 1000) / 1000]));
  return { rps, cpu_ms_per_request: perReq };
}

async function throughput(call: () => Promise<unknown>, concurrency: number, ms: number): Promise<number> {
  let done = 0;
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        await call();
        done++;
      }
    }),
  );
  return done / (ms / 1000);
}

interface Pair {
  direct: () => Promise<unknown>;
  viaGw: () => Promise<unknown>;
  viaProxy: () => Promise<unknown>;
  proxyPid?: number;
  upstreamPid?: number;
  gatewayPid?: number;
}

async function measure({ direct, viaGw, viaProxy, upstreamPid, gatewayPid, proxyPid }: Pair, n: number, seconds: number) {
  // Warm-up to steady state: the gateway is a long-running service with far more code than
  // the fake upstream (express, zod, SQLite), and V8 takes thousands of requests to optimize
  // it all; measuring its first seconds would mostly measure the JIT compiler.
  for (let i = 0; i < Math.min(300, n); i++) await Promise.all([direct(), viaGw(), viaProxy()]);
  await throughput(direct, 16, WARMUP_MS);
  await throughput(viaGw, 16, WARMUP_MS);
  await throughput(viaProxy, 16, WARMUP_MS / 2);
  const d: number[] = [];
  const g: number[] = [];
  const x: number[] = [];
  for (let i = 0; i < n; i++) {
    let t = performance.now();
    await direct();
    d.push(performance.now() - t);
    t = performance.now();
    await viaGw();
    g.push(performance.now() - t);
    t = performance.now();
    await viaProxy();
    x.push(performance.now() - t);
  }
  const ms = seconds * 1000;
  const dRun = await withCpu({ client: undefined, upstream: upstreamPid }, () => throughput(direct, 16, ms), ms);
  const gRun = await withCpu({ client: undefined, gateway: gatewayPid, upstream: upstreamPid }, () => throughput(viaGw, 16, ms), ms);
  const xRun = await withCpu({ client: undefined, proxy: proxyPid, upstream: upstreamPid }, () => throughput(viaProxy, 16, ms), ms);
  const tDirect = dRun.rps;
  const tGw = gRun.rps;
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const directCpu = dRun.cpu_ms_per_request.client! + dRun.cpu_ms_per_request.upstream!;
  return {
    latency_ms: {
      direct: { p50: r3(pct(d, 50)), p95: r3(pct(d, 95)) },
      gateway: { p50: r3(pct(g, 50)), p95: r3(pct(g, 95)) },
      overhead_p50: r3(pct(g, 50) - pct(d, 50)),
      overhead_p95: r3(pct(g, 95) - pct(d, 95)),
      ratio_p50: r3(pct(g, 50) / pct(d, 50)),
      ratio_p95: r3(pct(g, 95) / pct(d, 95)),
    },
    throughput_rps_c16: { direct: Math.round(tDirect), gateway: Math.round(tGw), ratio: r3(tGw / tDirect) },
    // The floor of any hop in between: a bare node:http pass-through proxy, same run.
    bare_proxy: {
      latency_p50_ms: r3(pct(x, 50)),
      overhead_p50: r3(pct(x, 50) - pct(d, 50)),
      throughput_ratio: r3(xRun.rps / tDirect),
      cpu_ms_per_request: xRun.cpu_ms_per_request.proxy,
      gateway_overhead_p50_beyond_proxy: r3(pct(g, 50) - pct(x, 50)),
    },
    // The gateway is a server and a client in one: its CPU per request against the direct
    // exchange's (client + upstream) is the load-independent form of its overhead.
    cpu_ms_per_request_c16: {
      direct: dRun.cpu_ms_per_request,
      via_gateway: gRun.cpu_ms_per_request,
      gateway_vs_direct_exchange: r3(gRun.cpu_ms_per_request.gateway! / directCpu),
    },
  };
}

async function main() {
  const loadAtStart = os.loadavg()[0];
  const up = await child('upstream');
  const slow = await child('upstream-slow');
  const paced = await child('upstream-paced');
  const gw = await child('gateway');
  const proxy = await child('proxy', { BENCH_UP: up.info.url, BENCH_SLOW: slow.info.url });
  const auth = { authorization: `Bearer ${KEY}` };
  try {
    await post(`${gw.info.url}/v1/engines`, { name: 'up', kind: 'openai', base_url: up.info.url }, auth);
    await post(`${gw.info.url}/v1/engines`, { name: 'slow', kind: 'openai', base_url: slow.info.url }, auth);
    await post(`${gw.info.url}/v1/engines`, { name: 'paced', kind: 'openai', base_url: paced.info.url }, auth);
    const websocket = async () => ({
      box_echo: await measureWsVsHttp(gw.info.url, auth, 'box/echo'),
      instant_upstream: await measureWsVsHttp(gw.info.url, auth, 'up/m'),
    });
    if (only) {
      // `--only=websocket,embeddings`: just these scenarios (a shared machine: the full run takes minutes)
      const parts: Record<string, () => Promise<unknown>> = { websocket, embeddings: () => measureEmbeddingsVsBare(gw.info.url, auth, gw.proc.pid) };
      const out: Record<string, unknown> = { cores: os.availableParallelism(), load_average_1m: { start: loadAtStart } };
      for (const k of only) out[k] = await parts[k]!();
      (out.load_average_1m as Record<string, number>).end = os.loadavg()[0]!;
      console.log(JSON.stringify(out, null, 2));
      return;
    }
    const body = { messages: [{ role: 'user', content: 'the quick brown fox jumps over the lazy dog' }], max_completion_tokens: 64 };
    const pair = (u: { info: { url: string }; proc: ChildProcess }, name: string): Pair => ({
      direct: () => post(`${u.info.url}/chat/completions`, { model: 'm', ...body }),
      viaGw: () => post(`${gw.info.url}/v1/chat/completions`, { model: `${name}/m`, ...body }, auth),
      viaProxy: () => post(`${proxy.info.url}/${name}/chat/completions`, { model: 'm', ...body }),
      proxyPid: proxy.proc.pid,
      upstreamPid: u.proc.pid,
      gatewayPid: gw.proc.pid,
    });
    const instant = await measure(pair(up, 'up'), 2000, 5);
    const realistic = await measure(pair(slow, 'slow'), 200, 5);

    const embedded = process.argv.includes('--no-local') ? null : await measureEmbedded(gw.info.url, auth);
    const streaming = await measureStreaming(
      {
        up: { url: up.info.url, pid: up.proc.pid },
        paced: paced.info,
        gateway: { url: gw.info.url, pid: gw.proc.pid },
        proxy: { url: proxy.info.url, pid: proxy.proc.pid },
      },
      auth,
      'up',
    );
    const embeddedVsBare = process.argv.includes('--no-local') ? null : await measureEmbeddedVsBare(gw.info.url, auth, gw.proc.pid);
    const ws = await websocket();
    const embeddings = process.argv.includes('--no-local') ? null : await measureEmbeddingsVsBare(gw.info.url, auth, gw.proc.pid);
    const report = {
      cores: os.availableParallelism(),
      load_average_1m: { start: loadAtStart, end: os.loadavg()[0] },
      instant_upstream: instant,
      [`upstream_${SLOW_UPSTREAM_MS}ms`]: realistic,
      embedded_tiny_model: embedded,
      streaming_and_tools: streaming,
      embedded_vs_node_llama_cpp: embeddedVsBare,
      websocket_vs_http_turn: ws,
      embeddings_vs_node_llama_cpp: embeddings,
      goals: {
        websocket_turn_p50_ratio_at_most_0_8: { box_echo: ws.box_echo.ratio_p50 <= 0.8, instant_upstream: ws.instant_upstream.ratio_p50 <= 0.8 },
        first_streamed_byte_added_p50_under_1ms: streaming.first_text_byte_ms.added_p50 < 1,
        streamed_tokens_ratio_at_least_0_97: Object.fromEntries(
          Object.entries(streaming.streamed_tokens_per_s[`paced_${PACE_MS}ms`]!).map(([c, r]) => [`paced_${c}`, r.ratio >= 0.97]),
        ),
        tool_round_trip_added_p50_under_2ms: streaming.tool_round_trip_ms.added_p50 < 2,
        embedded_ratio_at_least_0_95: embeddedVsBare ? embeddedVsBare.ratio >= 0.95 : null,
        embeddings_ratio_at_least_0_95: embeddings ? embeddings.ratio >= 0.95 : null,
        overhead_p50_under_1ms: instant.latency_ms.overhead_p50 < 1,
        throughput_ratio_at_least_0_95: { instant: instant.throughput_rps_c16.ratio >= 0.95, realistic: realistic.throughput_rps_c16.ratio >= 0.95 },
      },
    };
    console.log(JSON.stringify(report, null, 2));
  } finally {
    up.proc.kill();
    slow.proc.kill();
    paced.proc.kill();
    proxy.proc.kill();
    // The gateway's data dir goes once the gateway has exited (it was a temp dir of its own).
    const running = gw.proc.exitCode === null && gw.proc.signalCode === null;
    const gone = running ? new Promise((r) => gw.proc.once('exit', r)) : Promise.resolve();
    gw.proc.kill();
    await gone;
    if (gw.info.dataDir) fs.rmSync(gw.info.dataDir, { recursive: true, force: true });
  }
}

/** Tokens/s of the embedded engine on the generated tiny model (`--no-local` skips it). */
async function measureEmbedded(gwUrl: string, auth: Record<string, string>) {
  const { writeTinyModel } = await import('../src-server/areas/inference/test-support/tiny-model.js');
  const file = writeTinyModel(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-tiny-')), 'tiny.gguf'));
  await post(`${gwUrl}/v1/engines/local/models`, { path: file }, auth);
  const long = {
    model: 'local/tiny',
    input: 'go',
    temperature: 0,
    max_output_tokens: 256,
    text: { format: { type: 'json_schema', name: 's', schema: { type: 'object', properties: { s: { type: 'string' } }, required: ['s'] } } },
  };
  await post(`${gwUrl}/v1/responses`, long, auth);
  let tokens = 0;
  let t = performance.now();
  for (let i = 0; i < 5; i++) tokens += (await post(`${gwUrl}/v1/responses`, long, auth)).usage.output_tokens;
  const tokPerSec = tokens / ((performance.now() - t) / 1000);
  const short: number[] = [];
  for (let i = 0; i < 20; i++) {
    t = performance.now();
    await post(`${gwUrl}/v1/responses`, { model: 'local/tiny', input: 'hi', temperature: 0 }, auth);
    short.push(performance.now() - t);
  }
  return { tokens_per_s: Math.round(tokPerSec), tokens_measured: tokens, short_request_p50_ms: Math.round(pct(short, 50) * 100) / 100 };
}

if (role === 'upstream' || role === 'upstream-slow' || role === 'upstream-paced') {
  const { startFakeUpstream } = await import('../src-server/areas/inference/test-support/fake-upstreams.js');
  const up = await startFakeUpstream('openai', { record: false });
  if (role === 'upstream-slow') up.delayMs = SLOW_UPSTREAM_MS;
  if (role === 'upstream-paced') up.chunkDelayMs = PACE_MS;
  process.on('SIGTERM', () => process.exit(0)); // so `--cpu-prof` writes its profile
  console.log(JSON.stringify({ url: up.url }));
} else if (role === 'proxy') {
  // `/<up|slow>/<path>` → that upstream's `<path>`, bytes passed through as they come.
  const targets: Record<string, URL> = { up: new URL(process.env.BENCH_UP!), slow: new URL(process.env.BENCH_SLOW!) };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const server = http.createServer((req, res) => {
    const [, name, ...rest] = req.url!.split('/');
    const t = targets[name!]!;
    const headers = { 'content-type': 'application/json', 'content-length': req.headers['content-length'] ?? '0' };
    const out = http.request(
      { hostname: t.hostname, port: t.port, path: `${t.pathname.replace(/\/$/, '')}/${rest.join('/')}`, method: req.method, headers, agent },
      (up) => {
        const len = up.headers['content-length'];
        res.writeHead(up.statusCode!, len ? { 'content-type': 'application/json', 'content-length': len } : { 'content-type': 'application/json' });
        up.pipe(res);
      },
    );
    req.pipe(out);
  });
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));
} else if (role === 'gateway') {
  const { startService } = await import('../src-server/service.js');
  const { FakeRuntime } = await import('../src-server/test-support/fake-runtime.js');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-inf-'));
  const quiet = { info() {}, warn() {}, error: console.error };
  // No box runtime: with the QEMU one, the service starts building the guest image
  // (debootstrap, minutes of CPU in child processes that outlive this one) at start, which
  // runs beside the measurement; and no template VM booting in the background either.
  const svc = await startService({
    dataDir,
    apiKey: KEY,
    log: quiet,
    maxConcurrentPerOrg: 1000,
    runtime: (d) => new FakeRuntime(d),
    tuning: { prepareTemplates: false },
  });
  // A plain exit on SIGTERM, so `--cpu-prof` (BENCH_GATEWAY_PROF) gets to write its profile.
  process.on('SIGTERM', () => process.exit(0));
  console.log(JSON.stringify({ url: svc.url, dataDir }));
} else {
  await main();
}
