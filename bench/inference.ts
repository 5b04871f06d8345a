// `npm run bench:inference`: gateway overhead against calling the same loopback
// OpenAI-compatible upstream directly (latency p50/p95, throughput at concurrency 16),
// and tokens/s of the embedded engine on the generated tiny model. The upstream and the
// gateway each run in their own process; this process is the client.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const KEY = 'bxk_bench_key_000000000000000000000000000';
/** A second upstream answers after this long, like a real model server would. */
const SLOW_UPSTREAM_MS = 20;
const role = process.argv.find((a) => a.startsWith('--role='))?.slice(7);

function child(r: string): Promise<{ proc: ChildProcess; info: { url: string; dataDir?: string } }> {
  const proc = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), `--role=${r}`], { stdio: ['ignore', 'pipe', 'inherit'] });
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

async function throughput(call: () => Promise<unknown>, concurrency: number, ms: number): Promise<number> {
  let done = 0;
  const end = Date.now() + ms;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (Date.now() < end) {
      await call();
      done++;
    }
  }));
  return done / (ms / 1000);
}

interface Pair {
  direct: () => Promise<unknown>;
  viaGw: () => Promise<unknown>;
}

async function measure({ direct, viaGw }: Pair, n: number, seconds: number) {
  for (let i = 0; i < Math.min(300, n); i++) await Promise.all([direct(), viaGw()]);
  const d: number[] = [];
  const g: number[] = [];
  for (let i = 0; i < n; i++) {
    let t = performance.now();
    await direct();
    d.push(performance.now() - t);
    t = performance.now();
    await viaGw();
    g.push(performance.now() - t);
  }
  const tDirect = await throughput(direct, 16, seconds * 1000);
  const tGw = await throughput(viaGw, 16, seconds * 1000);
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
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
  };
}

async function main() {
  const up = await child('upstream');
  const slow = await child('upstream-slow');
  const gw = await child('gateway');
  const auth = { authorization: `Bearer ${KEY}` };
  try {
    await post(`${gw.info.url}/v1/engines`, { name: 'up', kind: 'openai', base_url: up.info.url }, auth);
    await post(`${gw.info.url}/v1/engines`, { name: 'slow', kind: 'openai', base_url: slow.info.url }, auth);
    const body = { messages: [{ role: 'user', content: 'the quick brown fox jumps over the lazy dog' }], max_completion_tokens: 64 };
    const pair = (u: string, name: string): Pair => ({
      direct: () => post(`${u}/chat/completions`, { model: 'm', ...body }),
      viaGw: () => post(`${gw.info.url}/v1/chat/completions`, { model: `${name}/m`, ...body }, auth),
    });
    const instant = await measure(pair(up.info.url, 'up'), 2000, 5);
    const realistic = await measure(pair(slow.info.url, 'slow'), 200, 5);

    const gwUrl = gw.info.url;
    const { writeTinyModel } = await import('../src-server/inference/test-support/tiny-model.js');
    const file = writeTinyModel(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-tiny-')), 'tiny.gguf'));
    await post(`${gwUrl}/v1/engines/local/models`, { path: file }, auth);
    const long = { model: 'local/tiny', input: 'go', temperature: 0, max_output_tokens: 256, text: { format: { type: 'json_schema', name: 's', schema: { type: 'object', properties: { s: { type: 'string' } }, required: ['s'] } } } };
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
    const report = {
      cores: os.availableParallelism(),
      load_average_1m: os.loadavg()[0],
      instant_upstream: instant,
      [`upstream_${SLOW_UPSTREAM_MS}ms`]: realistic,
      embedded_tiny_model: { tokens_per_s: Math.round(tokPerSec), tokens_measured: tokens, short_request_p50_ms: Math.round(pct(short, 50) * 100) / 100 },
      goals: {
        overhead_p50_under_1ms: instant.latency_ms.overhead_p50 < 1,
        throughput_ratio_at_least_0_95: { instant: instant.throughput_rps_c16.ratio >= 0.95, realistic: realistic.throughput_rps_c16.ratio >= 0.95 },
      },
    };
    console.log(JSON.stringify(report, null, 2));
  } finally {
    up.proc.kill();
    slow.proc.kill();
    gw.proc.kill();
  }
}

if (role === 'upstream' || role === 'upstream-slow') {
  const { startFakeUpstream } = await import('../src-server/inference/test-support/fake-upstreams.js');
  const up = await startFakeUpstream('openai', { record: false });
  if (role === 'upstream-slow') up.delayMs = SLOW_UPSTREAM_MS;
  console.log(JSON.stringify({ url: up.url }));
} else if (role === 'gateway') {
  const { startService } = await import('../src-server/service.js');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-inf-'));
  const quiet = { info() {}, warn() {}, error: console.error };
  const svc = await startService({ dataDir, apiKey: KEY, log: quiet, maxConcurrentPerOrg: 1000 });
  console.log(JSON.stringify({ url: svc.url, dataDir }));
} else {
  await main();
}
