import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../test-support/harness.js';
import { startInferenceService } from './test-support/service.js';
import { TINY_REPLY, writeTinyModel } from './test-support/tiny-model.js';

let svc: TestService;
let openai: OpenAI;
let modelFile: string;

beforeAll(async () => {
  modelFile = writeTinyModel(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tiny-')), 'tiny.gguf'));
  svc = await startInferenceService({ tuning: { llama: { idleMs: 1500, sequences: 2 } } });
  openai = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
  const added = await svc.api('/v1/engines/local/models', { method: 'POST', json: { path: modelFile } });
  expect(added.status).toBe(201);
  expect(await added.json()).toMatchObject({ id: 'local/tiny', name: 'tiny', loaded: false, size_bytes: fs.statSync(modelFile).size });
});
afterAll(() => svc?.close());

const status = async () => (await (await svc.api('/v1/status')).json()).engines[0];

describe('embedded engine (node-llama-cpp, tiny generated GGUF)', () => {
  it('lists the model and answers deterministically with greedy sampling', async () => {
    const models = await (await svc.api('/v1/models')).json();
    expect(models.data.map((m: { id: string }) => m.id)).toContain('local/tiny');
    const r = await openai.responses.create({ model: 'local/tiny', input: 'Say something.', temperature: 0 });
    expect(r.status).toBe('completed');
    expect(r.output_text).toBe(TINY_REPLY);
    expect(r.usage!.input_tokens).toBeGreaterThan(5);
    expect(r.usage!.output_tokens).toBeGreaterThanOrEqual(6);
    expect((await status()).loaded).toEqual(['tiny']);
  });

  it('max_output_tokens → incomplete with the partial text, in all three styles', async () => {
    const r = await openai.responses.create({ model: 'local/tiny', input: 'hi', max_output_tokens: 3, temperature: 0 });
    expect(r).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect(r.output_text).toBe('Hello from the');
    expect(r.usage!.output_tokens).toBe(3);
    const c = await openai.chat.completions.create({
      model: 'local/tiny',
      messages: [{ role: 'user', content: 'hi' }],
      max_completion_tokens: 2,
      temperature: 0,
    });
    expect(c.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'Hello from' } });
    const anthropic = new Anthropic({ apiKey: svc.key, baseURL: svc.url, maxRetries: 0 });
    const m = await anthropic.messages.create({ model: 'local/tiny', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], temperature: 0 } as never);
    expect(m).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: TINY_REPLY }] });
  });

  it('json_schema output is grammar-constrained and parses with responses.parse', async () => {
    const { zodTextFormat } = await import('openai/helpers/zod');
    const { z } = await import('zod');
    const Shape = z.object({ ok: z.boolean(), color: z.enum(['red', 'green', 'blue']) });
    const r = await openai.responses.parse({ model: 'local/tiny', input: 'json', temperature: 0, text: { format: zodTextFormat(Shape, 'shape') } });
    expect(r.status).toBe('completed');
    expect(Shape.parse(r.output_parsed)).toEqual(r.output_parsed);
  });

  it('what the grammar ignores is still validated: a failed validation fails clearly', async () => {
    const schema = {
      type: 'object',
      properties: { color: { type: 'string', enum: ['red', 'green'], pattern: '^zzz' } },
      required: ['color'],
      additionalProperties: false,
    };
    const err = await openai.responses
      .create({ model: 'local/tiny', input: 'json', temperature: 0, text: { format: { type: 'json_schema', name: 'c', schema, strict: true } } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.code).toBe('output_validation_failed');
    expect(err.message).toMatch(/must match pattern/);
  });

  it('serves several requests at once (more than its sequences: the rest wait)', async () => {
    const all = await Promise.all(Array.from({ length: 5 }, () => openai.responses.create({ model: 'local/tiny', input: 'hello', temperature: 0 })));
    expect(all.map((r) => r.output_text)).toEqual(Array(5).fill(TINY_REPLY));
  });

  it('unloads an idle model and loads it again on demand', async () => {
    await new Promise((r) => setTimeout(r, 3000));
    expect((await status()).loaded).toEqual([]);
    const r = await openai.responses.create({ model: 'local/tiny', input: 'again', temperature: 0 });
    expect(r.output_text).toBe(TINY_REPLY);
  });

  it('adds a model by URL as a download job with progress; a bad URL fails the job', async () => {
    const server = http.createServer((req, res) => {
      if (req.url !== '/files/tiny-dl.gguf') return void res.writeHead(404).end('no');
      const bytes = fs.readFileSync(modelFile);
      res.writeHead(200, { 'content-length': bytes.length });
      res.end(bytes);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const started = await svc.api('/v1/engines/local/models', { method: 'POST', json: { url: `${base}/files/tiny-dl.gguf` } });
      expect(started.status).toBe(202);
      const job = await started.json();
      expect(job).toMatchObject({ status: 'running', name: 'tiny-dl' });
      const done = await pollJob(job.id);
      expect(done).toMatchObject({
        status: 'completed',
        model_id: 'local/tiny-dl',
        bytes_done: fs.statSync(modelFile).size,
        bytes_total: fs.statSync(modelFile).size,
      });
      const r = await openai.responses.create({ model: 'local/tiny-dl', input: 'x', temperature: 0 });
      expect(r.output_text).toBe(TINY_REPLY);

      const bad = await (await svc.api('/v1/engines/local/models', { method: 'POST', json: { url: `${base}/missing.gguf` } })).json();
      expect(await pollJob(bad.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/HTTP 404/) });
      expect(fs.existsSync(path.join(svc.dataDir, 'models', 'missing.gguf'))).toBe(false);
    } finally {
      server.close();
    }
  });

  it('refuses a file that is not GGUF', async () => {
    const junk = path.join(path.dirname(modelFile), 'junk.gguf');
    fs.writeFileSync(junk, 'not a model');
    const res = await svc.api('/v1/engines/local/models', { method: 'POST', json: { path: junk } });
    expect(res.status).toBe(400);
    expect((await res.json()).error.param).toBe('path');
  });
});

async function pollJob(id: string) {
  for (let i = 0; i < 100; i++) {
    const job = await (await svc.api(`/v1/engines/local/downloads/${id}`)).json();
    if (job.status !== 'running') return job;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('download did not finish');
}
