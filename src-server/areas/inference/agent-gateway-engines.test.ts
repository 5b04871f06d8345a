import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type TestService } from '../../test-support/harness.js';
import { startFakeUpstream, type FakeUpstream } from './test-support/fake-upstreams.js';
import { dataUrl, png } from './test-support/images.js';
import { startInferenceService } from './test-support/service.js';
import { writeTinyModel } from './test-support/tiny-model.js';

// Issue 34, part A, past box/echo: images reach image-taking upstreams in their own wire
// format, a compaction reaches them as the conversation it stands for, and the embedded
// engine (text only) refuses images naming the model.
let svc: TestService;
let oaUp: FakeUpstream;
let anUp: FakeUpstream;
let openai: OpenAI;
let anthropic: Anthropic;
const pic = png(3, 2);
const b64 = pic.toString('base64');

beforeAll(async () => {
  oaUp = await startFakeUpstream('openai');
  anUp = await startFakeUpstream('anthropic');
  svc = await startInferenceService();
  for (const [name, kind, up] of [
    ['oa', 'openai', oaUp],
    ['an', 'anthropic', anUp],
  ] as const) {
    expect((await svc.api('/v1/engines', { method: 'POST', json: { name, kind, base_url: up.url } })).status).toBe(200);
  }
  const tiny = writeTinyModel(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tiny-')), 'tiny.gguf'));
  expect((await svc.api('/v1/engines/local/models', { method: 'POST', json: { path: tiny } })).status).toBe(201);
  openai = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: svc.key, baseURL: svc.url, maxRetries: 0 });
});
afterAll(async () => {
  await svc?.close();
  await oaUp?.close();
  await anUp?.close();
});

const lastBody = (up: FakeUpstream) => up.requests.filter((r) => r.path.endsWith('/chat/completions') || r.path.endsWith('/v1/messages')).at(-1)!.body;

describe('images pass through to upstreams, translated', () => {
  it('an Anthropic image block reaches an OpenAI-style upstream as an image_url part', async () => {
    await anthropic.messages.create({
      model: 'oa/fake-gpt',
      max_tokens: 50,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
          ],
        },
      ],
    });
    expect(lastBody(oaUp).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${b64}` } },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ],
      },
    ]);
  });

  it('an OpenAI input_image reaches an Anthropic-style upstream as image blocks (base64 and url sources)', async () => {
    await openai.responses.create({
      model: 'an/fake-claude',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'look' },
            { type: 'input_image', image_url: dataUrl('image/png', pic), detail: 'auto' },
            { type: 'input_image', image_url: 'https://example.com/b.png', detail: 'auto' },
          ],
        },
      ],
    });
    expect(lastBody(anUp).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64 } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/b.png' } },
        ],
      },
    ]);
  });

  it('chat image_url parts reach an OpenAI-style upstream unchanged; streamed as well', async () => {
    const stream = await openai.chat.completions.create({
      model: 'oa/fake-gpt',
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: dataUrl('image/png', pic) } }] }],
    });
    for await (const _ of stream) void _;
    expect(lastBody(oaUp)).toMatchObject({
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: dataUrl('image/png', pic) } }] }],
    });
  });
});

describe('a compaction reaches every engine as the conversation it stands for', () => {
  it('upstreams get the compacted turns, the answer included, in order', async () => {
    const c = await openai.responses.compact({
      model: 'oa/fake-gpt',
      input: [
        { role: 'user', content: 'My name is Alice.' },
        { role: 'assistant', content: 'Hello Alice!' },
      ],
    });
    const input = [...(c.output as unknown as OpenAI.Responses.ResponseInput), { role: 'user' as const, content: 'What is my name?' }];
    await openai.responses.create({ model: 'oa/fake-gpt', input });
    expect(lastBody(oaUp).messages).toEqual([
      { role: 'user', content: 'My name is Alice.' },
      { role: 'assistant', content: 'Hello Alice!' },
      { role: 'user', content: 'What is my name?' },
    ]);
    await openai.responses.create({ model: 'an/fake-claude', input });
    expect(lastBody(anUp).messages).toEqual([
      { role: 'user', content: 'My name is Alice.' },
      { role: 'assistant', content: 'Hello Alice!' },
      { role: 'user', content: 'What is my name?' },
    ]);
  });

  it('the embedded engine answers from a compaction too', async () => {
    const c = await openai.responses.compact({ model: 'local/tiny', input: 'Hello.' });
    const r = await openai.responses.create({ model: 'local/tiny', temperature: 0, input: [c.output.at(-1) as never, { role: 'user', content: 'More.' }] });
    const direct = await openai.responses.create({
      model: 'local/tiny',
      temperature: 0,
      input: [
        { role: 'user', content: 'Hello.' },
        { role: 'user', content: 'More.' },
      ],
    });
    expect(r.status).toBe('completed');
    expect(r.usage!.input_tokens).toBe(direct.usage!.input_tokens);
  });
});

describe('the embedded engine reads text only', () => {
  it('an image for a local model is a 400 naming the model', async () => {
    const res = await svc.api('/v1/responses', {
      method: 'POST',
      json: { model: 'local/tiny', input: [{ role: 'user', content: [{ type: 'input_image', image_url: dataUrl('image/png', pic) }] }] },
    });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err).toMatchObject({ param: 'model', code: 'model_not_vision_capable' });
    expect(err.message).toContain('local/tiny');
  });
});
