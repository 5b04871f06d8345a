import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type TestService } from '../../test-support/harness.js';
import { dataUrl, gif, jpeg, png } from './test-support/images.js';
import { startInferenceService } from './test-support/service.js';

// Issue 34, part A: store=false, POST /v1/responses/compact and image input, through the
// official clients against box/echo (upstreams and the local engine: agent-gateway-engines.test.ts).
let svc: TestService;
let openai: OpenAI;
let anthropic: Anthropic;
beforeAll(async () => {
  svc = await startInferenceService();
  openai = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: svc.key, baseURL: svc.url, maxRetries: 0 });
});
afterAll(() => svc?.close());

const post = (path: string, json: unknown) => svc.api(path, { method: 'POST', json });
const echoRequests = async () => {
  const body = await (await svc.api('/v1/usage/tokens')).json();
  return (body.data as { model: string; requests: number }[]).find((d) => d.model === 'box/echo')?.requests ?? 0;
};

describe('store: false', () => {
  it('openai responses.create({store: false}) answers, is charged, is never stored; continuing from it is previous_response_not_found', async () => {
    const before = await echoRequests();
    const r = await openai.responses.create({ model: 'box/echo', input: 'keep this off the record', store: false });
    expect(r).toMatchObject({ status: 'completed', store: false, output_text: 'Echo: keep this off the record' });
    expect(await echoRequests()).toBe(before + 1);
    const get = await svc.api(`/v1/responses/${r.id}`);
    expect(get.status).toBe(404);
    const err = await openai.responses.create({ model: 'box/echo', input: 'and then?', previous_response_id: r.id }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err.error).toMatchObject({ code: 'previous_response_not_found', param: 'previous_response_id', type: 'not_found_error' });
    const stored = await openai.responses.create({ model: 'box/echo', input: 'on the record' });
    expect(stored).toMatchObject({ store: true });
    expect((await svc.api(`/v1/responses/${stored.id}`)).status).toBe(200);
  });

  it('streamed with store: false: the same answer, not stored', async () => {
    const stream = await openai.responses.create({ model: 'box/echo', input: 'a b', store: false, stream: true });
    let done: OpenAI.Responses.Response | undefined;
    for await (const e of stream) if (e.type === 'response.completed') done = e.response;
    expect(done).toMatchObject({ store: false, status: 'completed', output: [{ type: 'message', content: [{ text: 'Echo: a b' }] }] });
    expect((await svc.api(`/v1/responses/${done!.id}`)).status).toBe(404);
  });

  it('chat completions store: false is answered and not stored; store: true (or absent) is stored as before', async () => {
    const off = await openai.chat.completions.create({ model: 'box/echo', messages: [{ role: 'user', content: 'x' }], store: false });
    expect(off.choices[0]!.message.content).toBe('Echo: x');
    expect((await svc.api(`/v1/responses/${off.id}`)).status).toBe(404);
    const on = await openai.chat.completions.create({ model: 'box/echo', messages: [{ role: 'user', content: 'y' }], store: true });
    expect((await svc.api(`/v1/responses/${on.id}`)).status).toBe(200);
  });

  it('store: false with background or a completion webhook is refused naming store (both need the stored response)', async () => {
    const bg = await post('/v1/responses', { model: 'box/echo', input: 'x', store: false, background: true });
    expect(bg.status).toBe(400);
    expect((await errorOf(bg)).param).toBe('store');
    const hook = await post('/v1/responses', { model: 'box/echo', input: 'x', store: false, metadata: { completion_webhook: 'http://127.0.0.1:9/h' } });
    expect(hook.status).toBe(400);
    expect((await errorOf(hook)).param).toBe('store');
    const bad = await post('/v1/chat/completions', { model: 'box/echo', messages: [{ role: 'user', content: 'x' }], store: 'no' });
    expect((await errorOf(bad)).param).toBe('store');
  });
});

describe('POST /v1/responses/compact', () => {
  const conversation: OpenAI.Responses.ResponseInput = [
    { role: 'user', content: 'My name is Alice.' },
    { role: 'assistant', content: 'Hello Alice!' },
    { role: 'user', content: 'I like tea.' },
  ];

  it('client.responses.compact gives a response.compaction: the user messages, then a compaction item a later request accepts', async () => {
    const c = await openai.responses.compact({ model: 'box/echo', input: conversation });
    expect(c.object).toBe('response.compaction');
    expect(c.usage.total_tokens).toBe(0);
    const items = c.output as unknown as Record<string, unknown>[];
    expect(items.map((i) => i.type)).toEqual(['message', 'message', 'compaction']);
    expect(items.slice(0, 2).map((i) => (i.content as { text: string }[])[0]!.text)).toEqual(['My name is Alice.', 'I like tea.']);
    const compaction = items[2] as { encrypted_content: string; id: string };
    expect(compaction.id).toMatch(/^cmp_/);
    expect(compaction.encrypted_content).not.toContain('Alice'); // opaque

    // The next request (the compacted output sent back, then a new turn) sees the whole
    // conversation: echo counts the same input tokens as for the uncompacted one.
    const next = [...(c.output as unknown as OpenAI.Responses.ResponseInput), { role: 'user' as const, content: 'What is my name?' }];
    const viaCompaction = await openai.responses.create({ model: 'box/echo', input: next });
    const direct = await openai.responses.create({ model: 'box/echo', input: [...conversation, { role: 'user', content: 'What is my name?' }] });
    expect(viaCompaction.output_text).toBe('Echo: What is my name?');
    expect(viaCompaction.usage!.input_tokens).toBe(direct.usage!.input_tokens);
    // The compaction item alone stands for the conversation too.
    const alone = await openai.responses.create({ model: 'box/echo', input: [compaction as never, { role: 'user', content: 'What is my name?' }] });
    expect(alone.usage!.input_tokens).toBe(direct.usage!.input_tokens);
  });

  it('compacts a stored response (previous_response_id), its answer included', async () => {
    const first = await openai.responses.create({ model: 'box/echo', input: 'remember papaya' });
    const c = await openai.responses.compact({ model: 'box/echo', previous_response_id: first.id });
    const compaction = (c.output as unknown as Record<string, unknown>[]).at(-1)!;
    const next = await openai.responses.create({ model: 'box/echo', input: [compaction as never, { role: 'user', content: 'which word?' }] });
    const chained = await openai.responses.create({ model: 'box/echo', input: 'which word?', previous_response_id: first.id });
    expect(next.usage!.input_tokens).toBe(chained.usage!.input_tokens);
  });

  it('refuses: no model (400 naming model), nothing to compact, an unknown model, a damaged compaction item', async () => {
    const noModel = await post('/v1/responses/compact', { input: 'x' });
    expect(noModel.status).toBe(400);
    expect((await errorOf(noModel)).param).toBe('model');
    const empty = await post('/v1/responses/compact', { model: 'box/echo' });
    expect((await errorOf(empty)).param).toBe('input');
    const unknown = await post('/v1/responses/compact', { model: 'box/nope', input: 'x' });
    expect(unknown.status).toBe(404);
    const c = await (await post('/v1/responses/compact', { model: 'box/echo', input: 'x' })).json();
    const item = c.output.at(-1);
    const tampered = await post('/v1/responses', {
      model: 'box/echo',
      input: [{ ...item, encrypted_content: item.encrypted_content.slice(0, -4) + 'AAAA' }],
    });
    expect(tampered.status).toBe(400);
    expect((await errorOf(tampered)).param).toBe('input[0].encrypted_content');
  });
});

describe('image input', () => {
  const pic = png(32, 20);
  const described = `[image: image/png, ${pic.length} bytes, 32x20]`;

  it('openai responses: input_image (data URL and http URL), described by box/echo', async () => {
    const r = await openai.responses.create({
      model: 'box/echo',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: dataUrl('image/png', pic), detail: 'auto' },
            { type: 'input_image', image_url: 'https://example.com/cat.jpg', detail: 'low' },
          ],
        },
      ],
    });
    expect(r.output_text).toBe(`Echo: What is this? ${described} [image: https://example.com/cat.jpg, not fetched]`);
  });

  it('chat completions: image_url parts', async () => {
    const g = gif(7, 9);
    const c = await openai.chat.completions.create({
      model: 'box/echo',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: dataUrl('image/gif', g) } },
            { type: 'text', text: 'and this?' },
          ],
        },
      ],
    });
    expect(c.choices[0]!.message.content).toBe(`Echo: and this? [image: image/gif, ${g.length} bytes, 7x9]`);
  });

  it('anthropic messages: image blocks (base64 and url sources)', async () => {
    const j = jpeg(640, 480);
    const m = await anthropic.messages.create({
      model: 'box/echo',
      max_tokens: 100,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: j.toString('base64') } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/dog.webp' } },
            { type: 'text', text: 'Describe.' },
          ],
        },
      ],
    });
    expect(m.content).toEqual([
      { type: 'text', text: `Echo: Describe. [image: image/jpeg, ${j.length} bytes, 640x480] [image: https://example.com/dog.webp, not fetched]` },
    ]);
  });

  it('an image is kept with its conversation: a continuation (previous_response_id) still carries it', async () => {
    const first = await openai.responses.create({
      model: 'box/echo',
      input: [{ role: 'user', content: [{ type: 'input_image', image_url: dataUrl('image/png', pic), detail: 'auto' }] }],
    });
    expect(first.output_text).toBe(`Echo: ${described}`);
    const got = await (await svc.api(`/v1/responses/${first.id}`)).json();
    expect(got.status).toBe('completed');
  });

  it.each([
    ['a malformed data URL', 'data:image/png,base64;AAAA', 'input[0].content[0].image_url'],
    ['no base64', 'data:image/png,abc', 'input[0].content[0].image_url'],
    ['an unsupported type', dataUrl('image/bmp', Buffer.from('BM....')), 'input[0].content[0].image_url'],
    ['bytes that are no image', dataUrl('image/png', Buffer.from('plain text, not a picture')), 'input[0].content[0].image_url'],
    ['a type that lies', dataUrl('image/png', gif(1, 1)), 'input[0].content[0].image_url'],
    ['a non-http URL', 'file:///etc/passwd', 'input[0].content[0].image_url'],
  ])('responses: %s is a 400 naming the field', async (_what, url, param) => {
    const res = await post('/v1/responses', { model: 'box/echo', input: [{ role: 'user', content: [{ type: 'input_image', image_url: url }] }] });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).param).toBe(param);
  });

  it('bad images in chat and messages, and images where they cannot go, are 400s naming the field', async () => {
    const cases: [string, unknown, string][] = [
      ['/v1/responses', { model: 'box/echo', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] }, 'input[0].content[0].file_id'],
      [
        '/v1/responses',
        { model: 'box/echo', input: [{ role: 'assistant', content: [{ type: 'input_image', image_url: dataUrl('image/png', pic) }] }] },
        'input[0].content[0].type',
      ],
      [
        '/v1/chat/completions',
        {
          model: 'box/echo',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'x' },
                { type: 'image_url', image_url: { url: 'data:;base64,' } },
              ],
            },
          ],
        },
        'messages[0].content[1].image_url.url',
      ],
      [
        '/v1/messages',
        {
          model: 'box/echo',
          max_tokens: 5,
          messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: jpeg(2, 2).toString('base64') } }] }],
        },
        'messages[0].content[0].source.media_type',
      ],
      [
        '/v1/messages',
        {
          model: 'box/echo',
          max_tokens: 5,
          messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: '%%%' } }] }],
        },
        'messages[0].content[0].source.data',
      ],
      [
        '/v1/messages',
        { model: 'box/echo', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }] },
        'messages[0].content[0].source.type',
      ],
    ];
    for (const [path, body, param] of cases) {
      const res = await post(path, body);
      expect(res.status, `${path} ${param}`).toBe(400);
      expect((await errorOf(res)).param).toBe(param);
    }
  });
});
