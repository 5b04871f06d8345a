// Streaming and tool-call figures of `npm run bench:inference` (issue 24), against the same
// loopback upstream called directly, in the same run:
// - first streamed text byte: time until the first frame carrying model text, direct vs
//   through the gateway (p50; the gateway's own first frames, sent before the upstream
//   answers, do not count);
// - streamed tokens/s through the gateway / direct, at concurrency 1 and 16 (a long answer,
//   one word per event);
// - a tool-call round trip (the call, then the result turn and the answer), gateway vs direct;
// - the embedded engine's tokens/s against node-llama-cpp alone on the same tiny model.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createParser } from 'eventsource-parser';

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

async function tokensPerSecond(call: () => Promise<{ tokens: number }>, concurrency: number, ms: number) {
  let tokens = 0;
  const t0 = performance.now();
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) tokens += (await call()).tokens;
    }),
  );
  return tokens / ((performance.now() - t0) / 1000);
}

async function postJson(url: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export async function measureStreaming(upUrl: string, gwUrl: string, auth: Record<string, string>, engine: string) {
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
  const ld = () => streamOnce(direct, { model: 'm', ...long }, {});
  const lg = () => streamOnce(viaGw, { model: `${engine}/m`, ...long }, auth);
  const rates: Record<string, { direct: number; gateway: number; ratio: number }> = {};
  for (const c of [1, 16]) {
    await tokensPerSecond(lg, c, 1500);
    const td = await tokensPerSecond(ld, c, 4000);
    const tg = await tokensPerSecond(lg, c, 4000);
    rates[`c${c}`] = { direct: Math.round(td), gateway: Math.round(tg), ratio: r3(tg / td) };
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
    streamed_tokens_per_s: rates,
    tool_round_trip_ms: { direct_p50: r3(pct(td, 50)), gateway_p50: r3(pct(tg, 50)), added_p50: r3(pct(tg, 50) - pct(td, 50)) },
  };
}

/** The embedded engine through the gateway (streamed) against node-llama-cpp alone, same tiny model, same settings. */
export async function measureEmbeddedVsBare(gwUrl: string, auth: Record<string, string>) {
  const { writeTinyModel } = await import('../src-server/inference/test-support/tiny-model.js');
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
  const runs = 5;
  await postJson(`${gwUrl}/v1/chat/completions`, body, auth);
  let tokens = 0;
  let t0 = performance.now();
  for (let i = 0; i < runs; i++) tokens += (await postJson(`${gwUrl}/v1/chat/completions`, body, auth)).usage.completion_tokens;
  const viaGateway = tokens / ((performance.now() - t0) / 1000);

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
  tokens = 0;
  t0 = performance.now();
  for (let i = 0; i < runs; i++) tokens += await once();
  const bare = tokens / ((performance.now() - t0) / 1000);
  await llama.dispose();
  return { gateway_tokens_per_s: Math.round(viaGateway), node_llama_cpp_tokens_per_s: Math.round(bare), ratio: r3(viaGateway / bare) };
}
