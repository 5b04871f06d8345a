import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, storedBytes, type TestService } from '../test-support/harness.js';
import { startFakeUpstream, type FakeUpstream } from './test-support/fake-upstreams.js';
import { startInferenceService } from './test-support/service.js';

let svc: TestService;
let oaUp: FakeUpstream;
let anUp: FakeUpstream;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  oaUp = await startFakeUpstream('openai', { apiKey: 'sk-up-openai' });
  anUp = await startFakeUpstream('anthropic', { apiKey: 'sk-up-anthropic' });
  svc = await startInferenceService();
  for (const [name, kind, up, key] of [
    ['oa', 'openai', oaUp, 'sk-up-openai'],
    ['an', 'anthropic', anUp, 'sk-up-anthropic'],
  ] as const) {
    const res = await svc.api('/v1/engines', { method: 'POST', json: { name, kind, base_url: up.url, api_key: key } });
    expect(res.status).toBe(200);
  }
  openai = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: svc.key, baseURL: svc.url, maxRetries: 0 });
});
afterAll(async () => {
  await svc?.close();
  await oaUp?.close();
  await anUp?.close();
});

describe('engines and models', () => {
  it('the upstream key is sealed at rest and never returned', async () => {
    const list = await (await svc.api('/v1/engines')).json();
    expect(list.data.map((e: { name: string }) => e.name)).toEqual(['local', 'an', 'oa', 'box']);
    expect(list.data[2]).toMatchObject({ kind: 'openai', base_url: oaUp.url, has_api_key: true });
    expect(JSON.stringify(list)).not.toContain('sk-up-openai');
    const bytes = await storedBytes(svc);
    expect(bytes.includes(Buffer.from('sk-up-openai'))).toBe(false);
  });

  it('GET /v1/models merges every engine and reads in both SDKs', async () => {
    const oa = [];
    for await (const m of openai.models.list()) oa.push(m);
    expect(oa.map((m) => m.id)).toEqual(expect.arrayContaining(['oa/fake-gpt', 'an/fake-claude']));
    expect(oa.find((m) => m.id === 'oa/fake-gpt')).toMatchObject({ object: 'model', owned_by: 'oa', created: 1700000000 });
    const an = await anthropic.models.list();
    const claude = an.data.find((m) => m.id === 'an/fake-claude');
    expect(claude).toMatchObject({ type: 'model', display_name: 'Fake Claude', created_at: '2024-01-01T00:00:00.000Z' });
  });
});

describe('Responses API through an OpenAI upstream', () => {
  it('creates and retrieves a response with the openai SDK', async () => {
    const events: { responseId: string; usage: { outputTokens: number } }[] = [];
    svc.ctx.services.inference.service.usageListeners.push((e) => events.push(e));
    const r = await openai.responses.create({ model: 'oa/fake-gpt', input: 'hello there', temperature: 0.5, metadata: { k: 'v' } });
    expect(r.id).toMatch(/^resp_/);
    expect(r).toMatchObject({ object: 'response', status: 'completed', model: 'oa/fake-gpt', temperature: 0.5, incomplete_details: null });
    expect(r.output_text).toBe('echo: hello there');
    expect(r.usage).toMatchObject({ input_tokens: 7, output_tokens: 3, total_tokens: 10, input_tokens_details: { cached_tokens: 2 } });
    const sent = oaUp.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk-up-openai');
    expect(sent.body).toMatchObject({ model: 'fake-gpt', temperature: 0.5, messages: [{ role: 'user', content: 'hello there' }] });
    expect(events).toEqual([expect.objectContaining({ responseId: r.id, model: 'oa/fake-gpt', usage: expect.objectContaining({ outputTokens: 3 }) })]);
    svc.ctx.services.inference.service.usageListeners.length = 0;
    const got = await openai.responses.retrieve(r.id);
    expect(got.output_text).toBe('echo: hello there');
    expect(got.metadata).toEqual({ k: 'v', supercached_input_tokens: '2', supercache_write_input_tokens: '0' });
  });

  it('max_output_tokens reached → incomplete with the partial output', async () => {
    const r = await openai.responses.create({ model: 'oa/fake-gpt', input: 'one two three four five', max_output_tokens: 3 });
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(r.output_text).toBe('echo: one two');
    expect(r.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'incomplete' });
  });

  it('parses json_schema output with responses.parse, and refuses output that breaks the schema', async () => {
    const { zodTextFormat } = await import('openai/helpers/zod');
    const { z } = await import('zod');
    const Answer = z.object({ city: z.string(), population: z.number().int().min(0) });
    oaUp.jsonReplies.push('{"city":"Lyon","population":513000}');
    const r = await openai.responses.parse({ model: 'oa/fake-gpt', input: 'json please', text: { format: zodTextFormat(Answer, 'answer') } });
    expect(r.output_parsed).toEqual({ city: 'Lyon', population: 513000 });
    expect(oaUp.requests.at(-1)!.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'answer' } });
    oaUp.jsonReplies.push('{"city":"Lyon","population":-1}', '{"city":"Lyon","population":-2}');
    const err = await openai.responses
      .create({ model: 'oa/fake-gpt', input: 'json please', text: { format: zodTextFormat(Answer, 'answer') } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.code).toBe('output_validation_failed');
    expect(err.message).toMatch(/population must be >= 0/);
    oaUp.jsonReplies.push('{"city":"Nice","population":-1}', '{"city":"Nice","population":340000}');
    const retried = await openai.responses.parse({ model: 'oa/fake-gpt', input: 'json', text: { format: zodTextFormat(Answer, 'answer') } });
    expect(retried.output_parsed).toEqual({ city: 'Nice', population: 340000 });
  });

  it('limitations answer 400 naming the field, as the SDK error class', async () => {
    const cases: [Record<string, unknown>, string][] = [
      // stream, function tools and parallel_tool_calls are served since issue 24 (tool-calls.test.ts, streaming.test.ts)
      [{ stream: 'yes' }, 'stream'],
      [{ tools: [{ type: 'web_search' }] }, 'tools[0].type'],
      [{ tool_choice: 'required' }, 'tool_choice'],
      // store=false and images are served since issue 34 (agent-gateway*.test.ts)
      [{ store: 'no' }, 'store'],
      [{ truncation: 'auto' }, 'truncation'],
      [{ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'x' }] }] }, 'input[0].content[0].image_url'],
      [{ input: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] }, 'input[0].content[0].type'],
      [{ metadata: { n: 1 } }, 'metadata.n'],
      [{ metadata: { completion_window: '1h' } }, 'metadata.completion_window'],
      [{ text: { format: { type: 'json_schema', name: 'x', schema: { type: 'nope' } } } }, 'text.format.schema'],
      [{ reasoning: { effort: 'extreme' } }, 'reasoning.effort'],
      [{ temperature: 3 }, 'temperature'],
    ];
    for (const [extra, param] of cases) {
      const err = await openai.responses.create({ model: 'oa/fake-gpt', input: 'x', ...extra } as never).catch((e) => e);
      expect(err, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err.param, JSON.stringify(extra)).toBe(param);
      expect(err.type).toBe('invalid_request_error');
    }
    const unknown = await openai.responses.create({ model: 'nope/model', input: 'x' }).catch((e) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(unknown.param).toBe('model');
  });

  it('an invalid completion_webhook is ignored: the call and the response are unchanged', async () => {
    const r = await openai.responses.create({ model: 'oa/fake-gpt', input: 'hi', metadata: { completion_webhook: 'ftp://x' } });
    expect(r.status).toBe('completed');
    expect(r.metadata).toMatchObject({ completion_webhook: 'ftp://x' });
    const d = await (await svc.api(`/v1/responses/${r.id}/deliveries`)).json();
    expect(d).toMatchObject({ state: 'none', data: [] });
  });

  it('unsupported operations answer 501 not_implemented_error', async () => {
    const r = await openai.responses.create({ model: 'oa/fake-gpt', input: 'hi' });
    for (const [method, path] of [
      ['DELETE', `/v1/responses/${r.id}`],
      ['POST', `/v1/responses/${r.id}/cancel`],
      ['POST', '/v1/messages/batches'],
      ['GET', '/v1/messages/batches/msgbatch_1'],
    ]) {
      const res = await svc.api(path, { method });
      expect(res.status, path).toBe(501);
      expect((await errorOf(res)).type).toBe('not_implemented_error');
    }
    const err = await openai.responses.delete(r.id).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(501);
  });

  it('upstream failures map onto the envelope', async () => {
    oaUp.failWith = 500;
    const err = await openai.responses.create({ model: 'oa/fake-gpt', input: 'x' }).catch((e) => e);
    oaUp.failWith = null;
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err.status).toBe(503);
    expect(err.code).toBe('upstream_unavailable');
  });
});

describe('Chat Completions and Messages', () => {
  it('chat completions through the openai SDK, stored and readable by id', async () => {
    const c = await openai.chat.completions.create({
      model: 'an/fake-claude',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hey you' },
      ],
    });
    expect(c.id).toMatch(/^chatcmpl-/);
    expect(c.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'echo: hey you' }, finish_reason: 'stop' });
    expect(c.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 3, total_tokens: 11 });
    expect(anUp.requests.at(-1)!.body).toMatchObject({ model: 'fake-claude', system: 'be brief', messages: [{ role: 'user', content: 'hey you' }] });
    expect(anUp.requests.at(-1)!.headers['x-api-key']).toBe('sk-up-anthropic');
    const got = await openai.responses.retrieve(c.id);
    expect(got).toMatchObject({ id: c.id, status: 'completed', output_text: 'echo: hey you' });

    const cut = await openai.chat.completions.create({ model: 'oa/fake-gpt', messages: [{ role: 'user', content: 'a b c d' }], max_completion_tokens: 2 });
    expect(cut.choices[0]!.finish_reason).toBe('length');
    for (const [extra, param] of [
      [{ n: 2 }, 'n'],
      [{ tools: [{ type: 'code_interpreter' }] }, 'tools[0].type'],
      [{ functions: [{ name: 'f' }] }, 'functions'],
    ] as const) {
      const err = await openai.chat.completions.create({ model: 'oa/fake-gpt', messages: [{ role: 'user', content: 'x' }], ...extra } as never).catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err.param).toBe(param);
    }
  });

  it('messages through the anthropic SDK, with json_schema output and limitations', async () => {
    const m = await anthropic.messages.create({
      model: 'oa/fake-gpt',
      max_tokens: 50,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'ping me' }] }],
    });
    expect(m.id).toMatch(/^msg_/);
    expect(m).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn', content: [{ type: 'text', text: 'echo: ping me' }] });
    const cut = await anthropic.messages.create({ model: 'an/fake-claude', max_tokens: 1, messages: [{ role: 'user', content: 'a b c' }] });
    expect(cut.stop_reason).toBe('max_tokens');
    expect(cut.usage).toMatchObject({ input_tokens: 4, cache_read_input_tokens: 3, cache_creation_input_tokens: 1, output_tokens: 1 });
    anUp.jsonReplies.push('{"ok":true}');
    const j = await anthropic.messages.create({
      model: 'an/fake-claude',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'json' }],
      output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } },
    } as never);
    expect(JSON.parse((j.content[0] as { text: string }).text)).toEqual({ ok: true });
    const { zodOutputFormat } = await import('@anthropic-ai/sdk/helpers/zod');
    const { z } = await import('zod');
    anUp.jsonReplies.push('{"ok":false,"n":3}');
    const parsed = await anthropic.messages.parse({
      model: 'an/fake-claude',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'json' }],
      output_config: { format: zodOutputFormat(z.object({ ok: z.boolean(), n: z.number() })) },
    });
    expect(parsed.parsed_output).toEqual({ ok: false, n: 3 });
    expect(anUp.requests.at(-1)!.body.output_config.format).toMatchObject({ type: 'json_schema', schema: { type: 'object' } });
    for (const [extra, param] of [
      [{ top_k: 3 }, 'top_k'],
      [{ thinking: { type: 'enabled', budget_tokens: 1024 } }, 'thinking'],
      [{ service_tier: 'auto' }, 'service_tier'],
      [{ tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tools[0].type'],
    ] as const) {
      const err = await anthropic.messages
        .create({ model: 'an/fake-claude', max_tokens: 5, messages: [{ role: 'user', content: 'x' }], ...extra } as never)
        .catch((e) => e);
      expect(err, param).toBeInstanceOf(Anthropic.BadRequestError);
      expect(err.error.error).toMatchObject({ type: 'invalid_request_error', param });
    }
    // `system` is served since issue 24: it reaches an Anthropic upstream as its own system prompt
    const sys = await anthropic.messages.create({ model: 'an/fake-claude', max_tokens: 5, system: 'be brief', messages: [{ role: 'user', content: 'x' }] });
    expect(sys.stop_reason).toBe('end_turn');
    expect(anUp.requests.at(-1)!.body).toMatchObject({ system: 'be brief', messages: [{ role: 'user', content: 'x' }] });
    // image blocks are served since issue 34: they reach an Anthropic upstream as sent
    await anthropic.messages.create({
      model: 'an/fake-claude',
      max_tokens: 5,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'http://x/y.png' } }] }],
    });
    expect(anUp.requests.at(-1)!.body.messages).toEqual([{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'http://x/y.png' } }] }]);
    const noKey = await new Anthropic({ apiKey: 'wrong', baseURL: svc.url, maxRetries: 0 }).messages
      .create({ model: 'an/fake-claude', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
      .catch((e) => e);
    expect(noKey).toBeInstanceOf(Anthropic.AuthenticationError);
  });

  it('a user-scoped key may call inference and is refused the webhook secret', async () => {
    const created = await (await svc.api('/v1/api-keys', { method: 'POST', json: { name: 'dev', scope: 'user' } })).json();
    const userClient = new OpenAI({ apiKey: created.secret, baseURL: `${svc.url}/v1`, maxRetries: 0 });
    const r = await userClient.responses.create({ model: 'oa/fake-gpt', input: 'as user' });
    expect(r.status).toBe('completed');
    const secret = await svc.api('/v1/webhook-secret', { headers: { authorization: `Bearer ${created.secret}` } });
    expect(secret.status).toBe(403);
    const own = await (await svc.api('/v1/webhook-secret')).json();
    expect(own.webhook_secret).toMatch(/^whsec_/);
  });
});
