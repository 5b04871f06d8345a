// Embeddings through the gateway against node-llama-cpp alone (part of `npm run
// bench:inference`): the generated tiny GGUF, the same embedding-context settings as the
// embedded engine's for a tiny model (1 thread, context min(4096, trained)), the same texts;
// batches of 16 texts per request, interleaved (gateway, bare, bare, gateway...) so both
// see the same machine load. Goal: gateway throughput >= 0.95 of node-llama-cpp alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Token } from 'node-llama-cpp';
import { cpuMs } from './inference-stream.js';

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const BATCH = 16;
const ROUNDS = 24;

export async function measureEmbeddingsVsBare(gwUrl: string, auth: Record<string, string>, gatewayPid?: number) {
  const { writeTinyModel } = await import('../src-server/areas/inference/test-support/tiny-model.js');
  const file = writeTinyModel(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-tiny-emb-')), 'tiny.gguf'));
  const post = async (url: string, body: unknown) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) });
    const json = (await res.json()) as { data: { embedding: number[] }[] };
    if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  await post(`${gwUrl}/v1/engines/local/models`, { path: file, name: 'tinyemb' });
  const texts = Array.from({ length: BATCH }, (_, i) => `the quick brown fox ${i} jumps over the lazy dog, sentence number ${i} of the batch`);
  const viaGw = async () => (await post(`${gwUrl}/v1/embeddings`, { model: 'local/tinyemb', input: texts, encoding_format: 'float' })).data.length;

  const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
  const llama = await getLlama({ gpu: false, build: 'never', skipDownload: true, progressLogs: false, logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath: file });
  const ctx = await model.createEmbeddingContext({ threads: 1, contextSize: Math.min(4096, model.trainContextSize) });
  const bare = async () => {
    for (const t of texts) await ctx.getEmbeddingFor(model.tokenize(t) as Token[]);
    return texts.length;
  };
  await viaGw();
  await bare();
  const sum = { gw: { n: 0, ms: 0, cpu: 0 }, bare: { n: 0, ms: 0, cpu: 0 } };
  const step = async (k: 'gw' | 'bare') => {
    const pid = k === 'gw' ? gatewayPid : undefined;
    const c0 = cpuMs(pid);
    const t0 = performance.now();
    sum[k].n += await (k === 'gw' ? viaGw() : bare());
    sum[k].ms += performance.now() - t0;
    sum[k].cpu += cpuMs(pid) - c0;
  };
  for (let i = 0; i < ROUNDS; i++) {
    for (const k of i % 2 ? (['bare', 'gw'] as const) : (['gw', 'bare'] as const)) await step(k);
  }
  await ctx.dispose();
  await llama.dispose();
  const gw = sum.gw.n / (sum.gw.ms / 1000);
  const alone = sum.bare.n / (sum.bare.ms / 1000);
  return {
    texts_per_request: BATCH,
    gateway_embeddings_per_s: Math.round(gw),
    node_llama_cpp_embeddings_per_s: Math.round(alone),
    ratio: r3(gw / alone),
    per_cpu_second_ratio: r3(sum.gw.n / sum.gw.cpu / (sum.bare.n / sum.bare.cpu)),
  };
}
