// Streaming and tool-call figures of `npm run bench:inference` (issue 24), against the same
// loopback upstream called directly, in the same run:
// - first streamed text byte: time until the first frame carrying model text, direct vs
//   through the gateway (p50; the gateway's own first frames, sent before the upstream
//   answers, do not count);
// - streamed tokens/s through the gateway / direct, at concurrency 1 and 16 (a long answer,
//   one word per event), against an upstream that paces its events PACE_MS apart (faster
//   than any model streams one answer; the goal's figure), and against one that writes
//   every event at once, where the three processes (client, gateway, upstream) share the
//   machine's cores and the ratio measures CPU, not the gateway's effect on a stream: there
//   the CPU each process spends per token is reported too, and a bare pass-through proxy
//   (no parsing) is the floor of any hop in between;
// - a tool-call round trip (the call, then the result turn and the answer), gateway vs direct;
// - the embedded engine's tokens/s against node-llama-cpp alone on the same tiny model.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createParser } from 'eventsource-parser';

const TICK_MS = 1000 / 100; // USER_HZ: 100 on every Linux we run on
/** CPU time (user + system, ms) a process has used so far; this process through cpuUsage. */
export function cpuMs(pid?: number): number {
  if (pid === undefined) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS; // utime, stime (fields 14, 15)
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** One streamed request: ms to the first text delta, and the number of text deltas. */
async function streamOnce(url: string, body: unknown, headers: Record<string, string>): Promise<{ firstMs: number; tokens: number }> {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  if (!res.ok || !res.body) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  let firstMs = -1;
  let tokens = 0;
  const parser = createParser({
    onEvent: (ev) => {
      if (ev.data === '[DONE]') return;
      const d = JSON.parse(ev.data);
      if (d.choices?.[0]?.delta?.content) {
        tokens++;
        if (firstMs < 0) firstMs = performance.now() - t0;
      }
    },
  });
  const dec = new TextDecoder();
  const reader = res.body.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) parser.feed(dec.decode(r.value, { stream: true }));
  return { firstMs, tokens };
}

/** Streamed tokens/s over `ms`, and each process's CPU µs per token meanwhile. */
async function tokensPerSecond(call: () => Promise<{ tokens: number }>, concurrency: number, ms: number, pids: Record<string, number | undefined> = {}) {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuMs(pid)]));
  let tokens = 0;
  const t0 = performance.now();
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) tokens += (await call()).tokens;
    }),
  );
  const rate = tokens / ((performance.now() - t0) / 1000);
  const cpuUs = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, Math.round(((cpuMs(pid) - before[k]!) / tokens) * 1000 * 100) / 100]));
  return { rate, cpuUs };
}

async function postJson(url: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export interface StreamTargets {
  /** The upstream that answers at once, and its process. */
  up: { url: string; pid?: number };
  /** The same upstream with PACE_MS between two events, registered in the gateway as `paced`. */
  paced: { url: string };
  gateway: { url: string; pid?: number };
  /** A bare pass-through proxy to `up` (`<proxy>/up/<path>`). */
  proxy: { url: string; pid?: number };
}

export const PACE_MS = 1;

export async function measureStreaming(t: StreamTargets, auth: Record<string, string>, engine: string) {
  const upUrl = t.up.url;
  const gwUrl = t.gateway.url;
  const direct = `${upUrl}/chat/completions`;
  const viaGw = `${gwUrl}/v1/chat/completions`;
  const short = { messages: [{ role: 'user', content: 'the quick brown fox' }], stream: true };
  const long = { messages: [{ role: 'user', content: 'word '.repeat(200) }], stream: true };
  const d = () => streamOnce(direct, { model: 'm', ...short }, {});
  const g = () => streamOnce(viaGw, { model: `${engine}/m`, ...short }, auth);
  for (let i = 0; i < 500; i++) await Promise.all([d(), g()]); // warm-up (JIT)
  const fd: number[] = [];
  const fg: number[] = [];
  for (let i = 0; i < 1000; i++) {
    fd.push((await d()).firstMs);
    fg.push((await g()).firstMs);
  }

  // Paced upstream: the goal's figure (the gateway must not slow a stream down).
  const pd = () => streamOnce(`${t.paced.url}/chat/completions`, { model: 'm', ...long }, {});
  const pg = () => streamOnce(viaGw, { model: 'paced/m', ...long }, auth);
  const paced: Record<string, { direct: number; gateway: number; ratio: number }> = {};
  for (const c of [1, 16]) {
    await tokensPerSecond(pd, c, 1000);
    await tokensPerSecond(pg, c, 1000);
    // Interleaved slices (direct, gateway, gateway, direct, ...), so both see the same load.
    let td = 0;
    let tg = 0;
    for (let i = 0; i < 4; i++) {
      for (const k of i % 2 ? (['g', 'd'] as const) : (['d', 'g'] as const)) {
        if (k === 'd') td += (await tokensPerSecond(pd, c, 1500)).rate / 4;
        else tg += (await tokensPerSecond(pg, c, 1500)).rate / 4;
      }
    }
    paced[`c${c}`] = { direct: Math.round(td), gateway: Math.round(tg), ratio: r3(tg / td) };
  }

  // Instant upstream: CPU-bound; what each process spends per token.
  const ld = () => streamOnce(direct, { model: 'm', ...long }, {});
  const lg = () => streamOnce(viaGw, { model: `${engine}/m`, ...long }, auth);
  const lx = () => streamOnce(`${t.proxy.url}/up/chat/completions`, { model: 'm', ...long }, {});
  const instant: Record<string, unknown> = {};
  for (const c of [1, 16]) {
    await tokensPerSecond(ld, c, 500);
    await tokensPerSecond(lg, c, 1500);
    await tokensPerSecond(lx, c, 500);
    const td = await tokensPerSecond(ld, c, 4000, { client: undefined, upstream: t.up.pid });
    const tg = await tokensPerSecond(lg, c, 4000, { client: undefined, gateway: t.gateway.pid, upstream: t.up.pid });
    const tx = await tokensPerSecond(lx, c, 4000, { client: undefined, proxy: t.proxy.pid, upstream: t.up.pid });
    instant[`c${c}`] = {
      direct: Math.round(td.rate),
      gateway: Math.round(tg.rate),
      ratio: r3(tg.rate / td.rate),
      bare_proxy: Math.round(tx.rate),
      bare_proxy_ratio: r3(tx.rate / td.rate),
      cpu_us_per_token: { direct: td.cpuUs, via_gateway: tg.cpuUs, via_bare_proxy: tx.cpuUs },
    };
  }

  // Tool-call round trip: the call, then the result turn answered in text (not streamed).
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  const ask = { role: 'user', content: 'Paris' };
  const trip = async (url: string, model: string, headers: Record<string, string>) => {
    const t0 = performance.now();
    const a = await postJson(url, { model, messages: [ask], tools }, headers);
    const call = a.choices[0].message.tool_calls[0];
    await postJson(url, { model, tools, messages: [ask, a.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'sunny' }] }, headers);
    return performance.now() - t0;
  };
  for (let i = 0; i < 300; i++) await Promise.all([trip(direct, 'm', {}), trip(viaGw, `${engine}/m`, auth)]);
  const td: number[] = [];
  const tg: number[] = [];
  for (let i = 0; i < 1000; i++) {
    td.push(await trip(direct, 'm', {}));
    tg.push(await trip(viaGw, `${engine}/m`, auth));
  }
  return {
    first_text_byte_ms: { direct_p50: r3(pct(fd, 50)), gateway_p50: r3(pct(fg, 50)), added_p50: r3(pct(fg, 50) - pct(fd, 50)) },
    streamed_tokens_per_s: { [`paced_${PACE_MS}ms`]: paced, instant_upstream: instant },
    tool_round_trip_ms: { direct_p50: r3(pct(td, 50)), gateway_p50: r3(pct(tg, 50)), added_p50: r3(pct(tg, 50) - pct(td, 50)) },
  };
}

/** The embedded engine through the gateway against node-llama-cpp alone, same tiny model, same settings, same request. */
export async function measureEmbeddedVsBare(gwUrl: string, auth: Record<string, string>, gatewayPid?: number) {
  const { writeTinyModel } = await import('../src-server/areas/inference/test-support/tiny-model.js');
  const file = writeTinyModel(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-tiny2-')), 'tiny.gguf'));
  await postJson(`${gwUrl}/v1/engines/local/models`, { path: file, name: 'tiny2' }, auth);
  const schema = { type: 'object', properties: { s: { type: 'string' } }, required: ['s'] };
  const body = {
    model: 'local/tiny2',
    messages: [{ role: 'user', content: 'go' }],
    temperature: 0,
    max_completion_tokens: 256,
    response_format: { type: 'json_schema', json_schema: { name: 's', schema } },
  };
  const runs = 16;
  const viaGw = async () => (await postJson(`${gwUrl}/v1/chat/completions`, body, auth)).usage.completion_tokens as number;

  // node-llama-cpp alone: one process-local model, the same context settings as the engine's for a tiny model.
  const { getLlama, LlamaChat, LlamaLogLevel } = await import('node-llama-cpp');
  const llama = await getLlama({ gpu: false, build: 'never', skipDownload: true, progressLogs: false, logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath: file });
  const context = await model.createContext({ sequences: 4, threads: 1, contextSize: Math.min(4096, model.trainContextSize) });
  const grammar = await llama.createGrammarForJsonSchema(schema as never);
  const once = async () => {
    const seq = context.getSequence();
    const chat = new LlamaChat({ contextSequence: seq });
    await chat.generateResponse(
      [
        { type: 'user', text: 'go' },
        { type: 'model', response: [] },
      ],
      { maxTokens: 256, temperature: 0, grammar },
    );
    const n = seq.tokenMeter.usedOutputTokens;
    chat.dispose();
    await seq.dispose();
    return n;
  };
  await once();
  await viaGw();
  // Interleaved (gateway, bare, bare, gateway, ...), so both see the same machine load. The
  // wall-clock ratio moves with what else runs on the machine; tokens per CPU-second of the
  // process that generates them (the gateway's, this one's for node-llama-cpp alone) barely does.
  const sum = { gw: { tokens: 0, ms: 0, cpu: 0 }, bare: { tokens: 0, ms: 0, cpu: 0 } };
  const step = async (k: 'gw' | 'bare') => {
    const pid = k === 'gw' ? gatewayPid : undefined;
    const c0 = cpuMs(pid);
    const t0 = performance.now();
    sum[k].tokens += await (k === 'gw' ? viaGw() : once());
    sum[k].ms += performance.now() - t0;
    sum[k].cpu += cpuMs(pid) - c0;
  };
  for (let i = 0; i < runs; i++) {
    for (const k of i % 2 ? (['bare', 'gw'] as const) : (['gw', 'bare'] as const)) await step(k);
  }
  await llama.dispose();
  const viaGateway = sum.gw.tokens / (sum.gw.ms / 1000);
  const bare = sum.bare.tokens / (sum.bare.ms / 1000);
  const perCpuSecond = { gateway: sum.gw.tokens / (sum.gw.cpu / 1000), bare: sum.bare.tokens / (sum.bare.cpu / 1000) };
  return {
    gateway_tokens_per_s: Math.round(viaGateway),
    node_llama_cpp_tokens_per_s: Math.round(bare),
    ratio: r3(viaGateway / bare),
    tokens_per_cpu_second: {
      gateway: Math.round(perCpuSecond.gateway),
      node_llama_cpp: Math.round(perCpuSecond.bare),
      ratio: r3(perCpuSecond.gateway / perCpuSecond.bare),
    },
    tokens: { gateway: sum.gw.tokens, node_llama_cpp: sum.bare.tokens },
  };
}
