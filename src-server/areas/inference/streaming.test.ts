import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../test-support/harness.js';
import { startFakeUpstream, type FakeUpstream } from './test-support/fake-upstreams.js';
import { startReceiver, waitFor } from './test-support/receiver.js';
import { startInferenceService } from './test-support/service.js';

// Issue 24: a streamed request is stored, accounted and delivered like a non-streamed one;
// refusals before the stream are JSON errors; an error mid-stream is the style's error
// event; a client that goes away stops the upstream's stream.
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

/** The SSE frames of a response body: `{event, data}` with data parsed (or the raw text for [DONE]). */
function frames(text: string): { event: string | null; data: any }[] {
  return text
    .split('\n\n')
    .filter((f) => f.trim())
    .map((f) => {
      const event = /^event: (.*)$/m.exec(f)?.[1] ?? null;
      const data = /^data: (.*)$/m.exec(f)![1]!;
      return { event, data: data === '[DONE]' ? data : JSON.parse(data) };
    });
}

const BODIES = {
  '/v1/responses': (model: string, extra = {}) => ({ model, input: 'one two three', stream: true, ...extra }),
  '/v1/chat/completions': (model: string, extra = {}) => ({
    model,
    messages: [{ role: 'user', content: 'one two three' }],
    stream: true,
    stream_options: { include_usage: true },
    ...extra,
  }),
  '/v1/messages': (model: string, extra = {}) => ({ model, max_tokens: 50, messages: [{ role: 'user', content: 'one two three' }], stream: true, ...extra }),
};

describe.each(Object.entries(BODIES))('%s', (path, body) => {
  it('streams in its own format; stored and readable by id, counted as usage, webhook delivered', async () => {
    const rx = await startReceiver(() => 200);
    const res = await svc.api(path, { method: 'POST', json: body('oa/fake-gpt', { metadata: { completion_webhook: rx.url } }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const fs = frames(await res.text());
    let id: string;
    if (path === '/v1/responses') {
      expect(fs.map((f) => f.event)).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        ...Array(4).fill('response.output_text.delta'),
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      expect(fs.map((f) => f.data.sequence_number)).toEqual(fs.map((_, i) => i));
      expect(fs.every((f) => f.data.type === f.event)).toBe(true);
      id = fs[0]!.data.response.id;
    } else if (path === '/v1/chat/completions') {
      expect(fs.every((f) => f.event === null)).toBe(true);
      expect(fs.at(-1)!.data).toBe('[DONE]');
      const usage = fs.at(-2)!.data;
      expect(usage).toMatchObject({ object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 7, completion_tokens: 4 } });
      expect(fs.at(-3)!.data.choices[0].finish_reason).toBe('stop');
      id = fs[0]!.data.id;
    } else {
      const names = fs.map((f) => f.event);
      expect(names.slice(0, 3)).toEqual(['message_start', 'ping', 'content_block_start']);
      expect(names.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
      expect(fs.at(-2)!.data).toMatchObject({ delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } });
      id = fs[0]!.data.message.id;
    }
    const stored = await waitFor(
      async () => svc.api(`/v1/responses/${id}`),
      (r) => r.status === 200,
    );
    const obj = await stored.json();
    expect(obj).toMatchObject({ id, status: 'completed', usage: { input_tokens: 7, output_tokens: 4 } });
    expect(obj.output[0].content[0].text).toBe('echo: one two three');
    await waitFor(
      () => rx.received.length,
      (n) => n === 1,
    );
    expect(JSON.parse(rx.received[0]!.body)).toMatchObject({ id, status: 'completed' });
    await rx.close();
  });

  it('a refusal before the stream is an ordinary JSON error', async () => {
    const res = await svc.api(path, { method: 'POST', json: body('zz/no-such-engine') });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/json/);
  });

  it("an upstream failing mid-stream ends it with the style's error event", async () => {
    up.failMidStream = true;
    try {
      const res = await svc.api(path, { method: 'POST', json: body('oa/fake-gpt') });
      expect(res.status).toBe(200);
      const last = frames(await res.text()).at(-1)!;
      if (path === '/v1/responses') expect(last).toMatchObject({ event: 'error', data: { type: 'error', code: 'upstream_error', message: /mid-stream/ } });
      else if (path === '/v1/chat/completions') expect(last.data).toMatchObject({ error: { code: 'upstream_error', message: /mid-stream/ } });
      else expect(last).toMatchObject({ event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: /mid-stream/ } } });
    } finally {
      up.failMidStream = false;
    }
  });

  it('a client that goes away mid-stream stops the upstream stream', async () => {
    up.chunkDelayMs = 100;
    const before = up.abandoned;
    const asked = up.requests.length;
    try {
      const ctl = new AbortController();
      const res = await svc.api(path, { method: 'POST', json: body('oa/fake-gpt'), signal: ctl.signal });
      const reader = res.body!.getReader();
      await reader.read(); // the stream has started
      await waitFor(
        () => up.requests.length,
        (n) => n > asked,
      ); // and the upstream is streaming
      ctl.abort();
      await waitFor(
        async () => up.abandoned,
        (n) => n > before,
      );
    } finally {
      up.chunkDelayMs = 0;
    }
  });
});

it('tokens of streamed requests are recorded as usage', async () => {
  await svc.api('/v1/chat/completions', { method: 'POST', json: BODIES['/v1/chat/completions']('box/echo') }).then((r) => r.text());
  const tokens = await waitFor(
    async () => (await svc.api('/v1/usage/tokens')).json(),
    (t) => JSON.stringify(t).includes('box/echo'),
  );
  expect(JSON.stringify(tokens)).toContain('box/echo');
});
