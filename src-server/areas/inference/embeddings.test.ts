import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createOpenAI } from '@ai-sdk/openai';
import { OpenAIEmbeddings } from '@langchain/openai';
import { embed, embedMany } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoEmbedding } from './engines/echo/echo-embedding.js';
import { errorOf, type TestService } from '../../test-support/harness.js';
import { startFakeUpstream, type FakeUpstream } from './test-support/fake-upstreams.js';
import { waitFor } from './test-support/receiver.js';
import { startInferenceService } from './test-support/service.js';
import { writeTinyModel } from './test-support/tiny-model.js';

let svc: TestService;
let up: FakeUpstream;
let openai: OpenAI;
beforeAll(async () => {
  up = await startFakeUpstream('openai');
  svc = await startInferenceService();
  openai = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
  expect((await svc.api('/v1/engines', { method: 'POST', json: { name: 'oa', kind: 'openai', base_url: up.url } })).status).toBeLessThan(300);
});
afterAll(async () => {
  await svc?.close();
  await up?.close();
});

const norm = (v: number[]) => Math.hypot(...v);
const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0) / (norm(a) * norm(b));

describe('POST /v1/embeddings on box/echo', () => {
  it('openai client: float and base64 encodings give the same deterministic unit vectors', async () => {
    const f = await openai.embeddings.create({ model: 'box/echo', input: ['hello world', 'other'], encoding_format: 'float' });
    expect(f).toMatchObject({ object: 'list', model: 'box/echo', usage: { prompt_tokens: 3, total_tokens: 3 } });
    expect(f.data.map((d) => d.index)).toEqual([0, 1]);
    const [a, b] = f.data.map((d) => d.embedding);
    expect(a).toHaveLength(64);
    expect(norm(a!)).toBeCloseTo(1, 6);
    expect(a).toEqual(echoEmbedding('hello world'));
    expect(cosine(a!, b!)).toBeLessThan(0.99);
    // the openai client asks for base64 by default and decodes it (little-endian float32)
    const d = await openai.embeddings.create({ model: 'box/echo', input: 'hello world' });
    d.data[0]!.embedding.forEach((x, i) => expect(x).toBeCloseTo(a![i]!, 6));
    const raw = await (
      await svc.api('/v1/embeddings', { method: 'POST', json: { model: 'box/echo', input: 'hello world', encoding_format: 'base64' } })
    ).json();
    expect(typeof raw.data[0].embedding).toBe('string');
    expect(Buffer.from(raw.data[0].embedding, 'base64').length).toBe(64 * 4);
  });

  it('dimensions cuts and rescales; token-id inputs; refusals name the field', async () => {
    const r = await openai.embeddings.create({ model: 'box/echo', input: 'hello world', dimensions: 8, encoding_format: 'float' });
    expect(r.data[0]!.embedding).toHaveLength(8);
    expect(norm(r.data[0]!.embedding)).toBeCloseTo(1, 6);
    const t = await openai.embeddings.create({ model: 'box/echo', input: [[1, 2, 3], [4]], encoding_format: 'float' });
    expect(t.usage.prompt_tokens).toBe(4);
    expect(t.data[0]!.embedding).toEqual(echoEmbedding('1 2 3'));
    const bad = await svc.api('/v1/embeddings', { method: 'POST', json: { model: 'box/echo', input: [] } });
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toMatchObject({ param: 'input' });
    const fmt = await svc.api('/v1/embeddings', { method: 'POST', json: { model: 'box/echo', input: 'x', encoding_format: 'int8' } });
    expect(await errorOf(fmt)).toMatchObject({ param: 'encoding_format' });
    const missing = await svc.api('/v1/embeddings', { method: 'POST', json: { model: 'box/none', input: 'x' } });
    expect(missing.status).toBe(404);
    expect(
      (await svc.api('/v1/embeddings', { method: 'POST', json: { model: 'box/echo', input: 'x' }, headers: { authorization: 'Bearer nope' } })).status,
    ).toBe(401);
  });

  it('lists the embedding capability and charges input tokens as usage', async () => {
    const models = (await (await svc.api('/v1/models')).json()).data as { id: string; capabilities?: string[] }[];
    expect(models.find((m) => m.id === 'box/echo')!.capabilities).toEqual(['embedding']);
    expect(models.find((m) => m.id === 'oa/fake-gpt')!.capabilities).toBeUndefined();
    const tokens = async () => JSON.stringify(await (await svc.api('/v1/usage/tokens')).json());
    const seen = await tokens();
    await openai.embeddings.create({ model: 'box/echo', input: 'one two three four five six seven' });
    await waitFor(tokens, (t) => t !== seen);
  });

  it('Vercel AI SDK: embed and embedMany', async () => {
    const provider = createOpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
    const one = await embed({ model: provider.embedding('box/echo'), value: 'sunny day' });
    expect(one.embedding).toEqual(echoEmbedding('sunny day'));
    const many = await embedMany({ model: provider.textEmbeddingModel('box/echo'), values: ['a', 'b', 'c'] });
    expect(many.embeddings).toEqual(['a', 'b', 'c'].map((x) => echoEmbedding(x)));
    expect(many.usage.tokens).toBe(3);
  });

  it('LangChain OpenAIEmbeddings: embedQuery and embedDocuments', async () => {
    const lc = new OpenAIEmbeddings({ model: 'box/echo', apiKey: svc.key, configuration: { baseURL: `${svc.url}/v1` } });
    const q = await lc.embedQuery('what is a box?');
    expect(q).toHaveLength(64);
    echoEmbedding('what is a box?').forEach((x, i) => expect(q[i]).toBeCloseTo(x, 6));
    const docs = await lc.embedDocuments(['first doc', 'second doc']);
    expect(docs).toHaveLength(2);
    echoEmbedding('second doc').forEach((x, i) => expect(docs[1]![i]).toBeCloseTo(x, 6));
  });
});

describe('POST /v1/embeddings through other engines', () => {
  it('passes through to an OpenAI-style upstream (dimensions and user forwarded, floats asked for)', async () => {
    const r = await openai.embeddings.create({ model: 'oa/text-embed', input: ['abc', 'de'], dimensions: 7, user: 'u1' });
    expect(r.data.map((d) => d.embedding)).toEqual([
      [3, 0, 7],
      [2, 1, 7],
    ]);
    expect(r.usage).toEqual({ prompt_tokens: 10, total_tokens: 10 });
    const sent = up.requests.filter((q) => q.path === '/v1/embeddings').pop()!;
    expect(sent.body).toEqual({ model: 'text-embed', input: ['abc', 'de'], encoding_format: 'float', dimensions: 7, user: 'u1' });
    up.failWith = 500;
    try {
      const failed = await svc.api('/v1/embeddings', { method: 'POST', json: { model: 'oa/text-embed', input: 'x' } });
      expect(failed.status).toBe(503);
    } finally {
      up.failWith = null;
    }
  });

  it('the embedded engine embeds with node-llama-cpp on the tiny GGUF', async () => {
    const file = writeTinyModel(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tiny-emb-')), 'tiny.gguf'));
    expect((await svc.api('/v1/engines/local/models', { method: 'POST', json: { path: file } })).status).toBe(201);
    const models = (await (await svc.api('/v1/models')).json()).data as { id: string; capabilities?: string[] }[];
    expect(models.find((m) => m.id === 'local/tiny')!.capabilities).toEqual(['embedding']);
    const r = await openai.embeddings.create({ model: 'local/tiny', input: ['Say something.', 'Say something.', 'else'], encoding_format: 'float' });
    const [a, b, c] = r.data.map((d) => d.embedding);
    expect(a!.length).toBeGreaterThan(1);
    expect(norm(a!)).toBeCloseTo(1, 5);
    expect(b).toEqual(a); // deterministic
    expect(c).not.toEqual(a);
    expect(r.usage.prompt_tokens).toBeGreaterThan(3);
    const cut = await openai.embeddings.create({ model: 'local/tiny', input: 'Say something.', dimensions: 4, encoding_format: 'float' });
    expect(cut.data[0]!.embedding).toHaveLength(4);
  });
});
