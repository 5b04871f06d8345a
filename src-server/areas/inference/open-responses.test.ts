import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestService } from '../../test-support/harness.js';
import { startInferenceService } from './test-support/service.js';

/**
 * Every Responses-shaped answer against the Open Responses response object (openresponses.org,
 * `ResponseResource`: its required fields and their types, as published in the
 * openresponses/openresponses repository's schema/components/schemas/ResponseResource.json).
 * The published OpenAPI document is not vendored here (CI is offline and it is not ours to
 * copy): this is its `required` list and field types, restated.
 */
const nullable = (s: object) => ({ anyOf: [s, { type: 'null' }] });
const OutputItem = {
  oneOf: [
    {
      type: 'object',
      required: ['type', 'id', 'status', 'role', 'content'],
      properties: {
        type: { const: 'message' },
        role: { const: 'assistant' },
        content: { type: 'array', items: { type: 'object', required: ['type', 'text', 'annotations'], properties: { type: { const: 'output_text' } } } },
      },
    },
    {
      type: 'object',
      required: ['type', 'id', 'call_id', 'name', 'arguments', 'status'],
      properties: { type: { const: 'function_call' }, arguments: { type: 'string' }, call_id: { type: 'string' }, name: { type: 'string' } },
    },
  ],
};
const ResponseResource = {
  type: 'object',
  required: [
    'id',
    'object',
    'created_at',
    'completed_at',
    'status',
    'incomplete_details',
    'model',
    'previous_response_id',
    'instructions',
    'output',
    'error',
    'tools',
    'tool_choice',
    'truncation',
    'parallel_tool_calls',
    'text',
    'top_p',
    'presence_penalty',
    'frequency_penalty',
    'top_logprobs',
    'temperature',
    'reasoning',
    'user',
    'usage',
    'max_output_tokens',
    'max_tool_calls',
    'store',
    'background',
    'service_tier',
    'metadata',
    'safety_identifier',
    'prompt_cache_key',
  ],
  properties: {
    id: { type: 'string' },
    object: { const: 'response' },
    created_at: { type: 'integer' },
    completed_at: nullable({ type: 'integer' }),
    status: { type: 'string' },
    incomplete_details: nullable({ type: 'object', required: ['reason'] }),
    model: { type: 'string' },
    previous_response_id: nullable({ type: 'string' }),
    instructions: nullable({ type: 'string' }),
    output: { type: 'array', items: OutputItem },
    error: nullable({ type: 'object', required: ['code', 'message'] }),
    tools: { type: 'array', items: { type: 'object', required: ['type', 'name', 'parameters'], properties: { type: { const: 'function' } } } },
    tool_choice: { anyOf: [{ enum: ['none', 'auto', 'required'] }, { type: 'object', required: ['type', 'name'] }] },
    truncation: { enum: ['auto', 'disabled'] },
    parallel_tool_calls: { type: 'boolean' },
    text: { type: 'object', required: ['format'] },
    top_p: { type: 'number' },
    presence_penalty: { type: 'number' },
    frequency_penalty: { type: 'number' },
    top_logprobs: { type: 'integer' },
    temperature: { type: 'number' },
    reasoning: nullable({ type: 'object' }),
    user: nullable({ type: 'string' }),
    usage: nullable({
      type: 'object',
      required: ['input_tokens', 'output_tokens', 'total_tokens', 'input_tokens_details', 'output_tokens_details'],
      properties: {
        input_tokens_details: { type: 'object', required: ['cached_tokens'] },
        output_tokens_details: { type: 'object', required: ['reasoning_tokens'] },
      },
    }),
    max_output_tokens: nullable({ type: 'integer' }),
    max_tool_calls: nullable({ type: 'integer' }),
    store: { type: 'boolean' },
    background: { type: 'boolean' },
    service_tier: { type: 'string' },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
    safety_identifier: nullable({ type: 'string' }),
    prompt_cache_key: nullable({ type: 'string' }),
  },
};
const validate = new Ajv2020({ strict: false, allErrors: true }).compile(ResponseResource);
const check = (o: unknown, what: string) => expect(validate(o) ? null : validate.errors, what).toBeNull();

let svc: TestService;
beforeAll(async () => {
  svc = await startInferenceService();
});
afterAll(() => svc?.close());

const post = async (path: string, json: object) => (await svc.api(path, { method: 'POST', json })).json();
const TOOLS = [{ type: 'function', name: 'f', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }];

it('every Responses answer carries the Open Responses required fields, with their types', async () => {
  const plain = await post('/v1/responses', { model: 'box/echo', input: 'hi' });
  check(plain, 'plain');
  const echoed = await post('/v1/responses', {
    model: 'box/echo',
    input: 'hi',
    presence_penalty: 0.5,
    frequency_penalty: -0.5,
    top_logprobs: 0,
    max_tool_calls: 2,
    safety_identifier: 'user-1',
    prompt_cache_key: 'k1',
  });
  check(echoed, 'open responses fields');
  expect(echoed).toMatchObject({ presence_penalty: 0.5, frequency_penalty: -0.5, max_tool_calls: 2, safety_identifier: 'user-1', prompt_cache_key: 'k1' });
  const called = await post('/v1/responses', { model: 'box/echo', input: 'x', tools: TOOLS, tool_choice: { type: 'function', name: 'f' } });
  check(called, 'tool call');
  expect(called.output[0]).toMatchObject({ type: 'function_call', name: 'f', arguments: '{"q":"x"}' });
  const cont = await post('/v1/responses', {
    model: 'box/echo',
    previous_response_id: called.id,
    tools: TOOLS,
    input: [{ type: 'function_call_output', call_id: called.output[0].call_id, output: 'done' }],
  });
  check(cont, 'continued');
  expect(cont).toMatchObject({ previous_response_id: called.id, output: [{ type: 'message', content: [{ text: 'done' }] }] });
  check(await post('/v1/responses', { model: 'box/echo', input: 'a b c', max_output_tokens: 1 }), 'incomplete');
  const queued = await svc.api('/v1/responses', { method: 'POST', json: { model: 'box/echo', input: 'bg', background: true } });
  check(await queued.json(), 'queued');
  const chat = await post('/v1/chat/completions', { model: 'box/echo', messages: [{ role: 'user', content: 'c' }] });
  const msg = await post('/v1/messages', { model: 'box/echo', max_tokens: 9, messages: [{ role: 'user', content: 'm' }] });
  for (const id of [plain.id, chat.id, msg.id]) check(await (await svc.api(`/v1/responses/${id}`)).json(), `GET ${id}`);
  const streamed = await (await svc.api('/v1/responses', { method: 'POST', json: { model: 'box/echo', input: 's', stream: true } })).text();
  for (const m of streamed.matchAll(/^data: (.*)$/gm)) {
    const e = JSON.parse(m[1]!);
    if (e.response) check(e.response, e.type);
  }
});

it('previous_response_id: an unknown id is 404 previous_response_not_found naming the field; top_logprobs > 0 is refused', async () => {
  const r = await svc.api('/v1/responses', { method: 'POST', json: { model: 'box/echo', input: 'x', previous_response_id: 'resp_nope' } });
  expect(r.status).toBe(404);
  expect((await r.json()).error).toMatchObject({ param: 'previous_response_id', code: 'previous_response_not_found' });
  const t = await svc.api('/v1/responses', { method: 'POST', json: { model: 'box/echo', input: 'x', top_logprobs: 3 } });
  expect(t.status).toBe(400);
  expect((await t.json()).error.param).toBe('top_logprobs');
});
