import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatStreamChunk, MessagesStreamEvent, ResponsesStreamEvent } from '@box/contract/inference-stream';
import type { TestService } from '../../test-support/harness.js';
import { startFakeUpstream, type FakeUpstream } from './test-support/fake-upstreams.js';
import { startInferenceService } from './test-support/service.js';

// Issue 24: every event of a streamed answer (text, a tool call, an error mid-stream) matches
// the schema the OpenAPI document publishes for its style (contract/inference-stream.ts).
let svc: TestService;
let up: FakeUpstream;
beforeAll(async () => {
  svc = await startInferenceService();
  up = await startFakeUpstream('openai');
  await svc.api('/v1/engines', { method: 'POST', json: { name: 'oa', kind: 'openai', base_url: up.url } });
});
afterAll(async () => {
  await svc?.close();
  await up?.close();
});

const PARAMS = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const STYLES = [
  {
    path: '/v1/responses',
    schema: ResponsesStreamEvent,
    body: (model: string, tools: boolean) => ({
      model,
      input: 'Paris is nice',
      stream: true,
      ...(tools ? { tools: [{ type: 'function', name: 'get_weather', parameters: PARAMS }] } : {}),
    }),
  },
  {
    path: '/v1/chat/completions',
    schema: ChatStreamChunk,
    body: (model: string, tools: boolean) => ({
      model,
      messages: [{ role: 'user', content: 'Paris is nice' }],
      stream: true,
      stream_options: { include_usage: true },
      ...(tools ? { tools: [{ type: 'function', function: { name: 'get_weather', parameters: PARAMS } }] } : {}),
    }),
  },
  {
    path: '/v1/messages',
    schema: MessagesStreamEvent,
    body: (model: string, tools: boolean) => ({
      model,
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Paris is nice' }],
      stream: true,
      ...(tools ? { tools: [{ name: 'get_weather', input_schema: PARAMS }] } : {}),
    }),
  },
] as const;

async function events(path: string, body: unknown) {
  const res = await svc.api(path, { method: 'POST', json: body });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n\n')
    .filter((f) => f.trim())
    .map((f) => ({ event: /^event: (.*)$/m.exec(f)?.[1] ?? null, data: /^data: (.*)$/m.exec(f)![1]! }));
}

function check(schema: z.ZodType, evs: { event: string | null; data: string }[]) {
  const types: string[] = [];
  for (const { event, data } of evs) {
    if (data === '[DONE]') continue;
    const parsed = schema.safeParse(JSON.parse(data));
    expect(parsed.error?.issues ?? [], data).toEqual([]);
    const type = (parsed.data as { type?: string; object?: string; error?: unknown }) ?? {};
    if (event !== null) expect(event).toBe(type.type);
    types.push(type.type ?? (type.error ? 'error' : type.object!));
  }
  return types;
}

describe.each(STYLES)('$path', ({ path, schema, body }) => {
  it('text, tool-call and error streams match the published event schema', async () => {
    for (const model of ['box/echo', 'oa/fake-gpt']) {
      const text = check(schema, await events(path, body(model, false)));
      const call = check(schema, await events(path, body(model, true)));
      expect(text.length).toBeGreaterThan(3);
      expect(call.length).toBeGreaterThan(3);
      if (path === '/v1/responses') expect(call).toContain('response.function_call_arguments.delta');
      if (path === '/v1/messages') expect(call).toContain('content_block_delta');
    }
    up.failMidStream = true;
    try {
      expect(check(schema, await events(path, body('oa/fake-gpt', false)))).toContain('error');
    } finally {
      up.failMidStream = false;
    }
  });

  it('the OpenAPI document shows the stream as text/event-stream with that schema', async () => {
    const doc = await (await svc.api('/v1/openapi.json')).json();
    const content = doc.paths[path].post.responses['200'].content;
    expect(Object.keys(content)).toEqual(expect.arrayContaining(['application/json', 'text/event-stream']));
    const sse = content['text/event-stream'].schema;
    expect(sse.description).toContain('beyond the spec');
    expect(JSON.stringify(sse)).toContain(
      path === '/v1/chat/completions' ? 'chat.completion.chunk' : path === '/v1/responses' ? 'response.output_text.delta' : 'content_block_delta',
    );
  });
});
