import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { generateObject, generateText, jsonSchema } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../test-support/harness.js';
import { startInferenceService } from './test-support/service.js';

// "Done means" of issue 10: a FRESH data dir lists a model, and the first responses.create
// (or the client's equivalent) with the first listed model completes, through every client.
let svc: TestService;
let first: string;
beforeAll(async () => {
  svc = await startInferenceService();
  const list = await (await svc.api('/v1/models')).json();
  first = list.data[0].id;
});
afterAll(() => svc?.close());

describe('a fresh install answers every popular client', () => {
  it('lists the built-in test model, honestly described', async () => {
    expect(first).toBe('box/echo');
    const m = await new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` }).models.retrieve(first);
    expect(m).toMatchObject({ id: 'box/echo', owned_by: 'box' });
    const raw = await (await svc.api('/v1/models/box/echo')).json();
    expect(raw.display_name).toMatch(/test model.*not a language model/);
    const missing = await svc.api('/v1/models/box%2Fnope');
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({ code: 'model_not_found', param: 'model_id' });
  });

  it('openai: responses.create and chat.completions.create', async () => {
    const openai = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
    const r = await openai.responses.create({ model: first, input: 'hello there' });
    expect(r.status).toBe('completed');
    expect(r.output_text).toBe('Echo: hello there');
    const c = await openai.chat.completions.create({ model: first, messages: [{ role: 'user', content: 'two words' }], max_completion_tokens: 2 });
    expect(c.choices[0]!.finish_reason).toBe('length');
    expect(c.choices[0]!.message.content).toBe('Echo:');
  });

  it('openai: a json_schema format gets a schema-valid instance', async () => {
    const openai = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
    const schema = {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'age', 'tags', 'kind'],
      properties: {
        name: { type: 'string', minLength: 3 },
        age: { type: 'integer', minimum: 18, maximum: 99 },
        tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
        kind: { enum: ['a', 'b'] },
      },
    };
    const r = await openai.responses.create({ model: first, input: 'Jo', text: { format: { type: 'json_schema', name: 'person', schema, strict: true } } });
    expect(JSON.parse(r.output_text)).toEqual({ name: 'Jo Jo', age: 18, tags: ['Jo', 'Jo'], kind: 'a' });
  });

  it('anthropic: messages.create', async () => {
    const anthropic = new Anthropic({ apiKey: svc.key, baseURL: svc.url });
    const m = await anthropic.messages.create({ model: first, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(m.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
    expect(m.stop_reason).toBe('end_turn');
  });

  it('anthropic: errors carry a top-level type "error" and the spec envelope', async () => {
    const res = await svc.api('/v1/messages', { method: 'POST', json: { model: 'box/nope', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] } });
    const body = await res.json();
    expect(res.status).toBe(404);
    expect(body).toMatchObject({ type: 'error', error: { type: 'not_found_error', param: 'model', code: 'model_not_found' } });
    const anthropic = new Anthropic({ apiKey: svc.key, baseURL: svc.url, maxRetries: 0 });
    await expect(anthropic.messages.create({ model: 'box/nope', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({
      status: 404,
      error: { type: 'error' },
    });
  });

  it('unsupported operations say x-should-retry: false, so the SDKs fail at once', async () => {
    const res = await svc.api('/v1/messages/batches', { method: 'POST', json: {} });
    expect(res.status).toBe(501);
    expect(res.headers.get('x-should-retry')).toBe('false');
    const anthropic = new Anthropic({ apiKey: svc.key, baseURL: svc.url }); // default retries
    const t0 = Date.now();
    await expect(anthropic.messages.batches.list()).rejects.toMatchObject({ status: 501 });
    expect(Date.now() - t0).toBeLessThan(400); // a retried 501 costs >= 0.5 s of backoff
  });

  it('Vercel AI SDK: @ai-sdk/openai (responses) and @ai-sdk/anthropic', async () => {
    const oa = createOpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
    const a = await generateText({ model: oa(first), prompt: 'from vercel' });
    expect(a.text).toBe('Echo: from vercel');
    const chat = await generateText({ model: oa.chat(first), prompt: 'via chat' });
    expect(chat.text).toBe('Echo: via chat');
    const an = createAnthropic({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
    const b = await generateText({ model: an(first), prompt: 'from anthropic' });
    expect(b.text).toBe('Echo: from anthropic');
    expect(b.finishReason).toBe('stop');
    const o = await generateObject({
      model: oa(first),
      prompt: 'Ann',
      schema: jsonSchema<{ n: string }>({ type: 'object', properties: { n: { type: 'string' } }, required: ['n'], additionalProperties: false }),
    });
    expect(o.object).toEqual({ n: 'Ann' });
  });

  it('LangChain: ChatOpenAI (both APIs) and ChatAnthropic', async () => {
    const lc = new ChatOpenAI({ model: first, apiKey: svc.key, configuration: { baseURL: `${svc.url}/v1` } });
    expect((await lc.invoke('lang chain')).content).toBe('Echo: lang chain');
    const lcr = new ChatOpenAI({ model: first, apiKey: svc.key, useResponsesApi: true, configuration: { baseURL: `${svc.url}/v1` } });
    expect(JSON.stringify((await lcr.invoke('responses chain')).content)).toContain('Echo: responses chain');
    const la = new ChatAnthropic({ model: first, apiKey: svc.key, anthropicApiUrl: svc.url });
    expect((await la.invoke('claude chain')).content).toBe('Echo: claude chain');
  });
});
