import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type TestService } from '../../test-support/harness.js';
import { startFakeUpstream, type FakeUpstream } from './test-support/fake-upstreams.js';
import { startInferenceService } from './test-support/service.js';

// Responses `namespace` tools (function tools grouped under one name; Codex CLI sends one):
// the engines see `<namespace>__<function>`, the client gets calls with `name` and
// `namespace` apart, as OpenAI's API writes them, streamed or not, and sends them back so.
let svc: TestService;
let oa: FakeUpstream;
let client: OpenAI;
beforeAll(async () => {
  svc = await startInferenceService();
  oa = await startFakeUpstream('openai');
  await svc.api('/v1/engines', { method: 'POST', json: { name: 'oa', kind: 'openai', base_url: oa.url } });
  client = new OpenAI({ baseURL: `${svc.url}/v1`, apiKey: svc.key, maxRetries: 0 });
});
afterAll(async () => {
  await svc?.close();
  await oa?.close();
});

const lookup = {
  type: 'function',
  name: 'lookup',
  description: 'Find a customer.',
  strict: false,
  parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
};
const crm = { type: 'namespace', name: 'crm', description: 'The CRM.', tools: [lookup] };

describe('namespace tools', () => {
  it('a call to a namespaced function comes back with name and namespace; the tools echo as a namespace', async () => {
    const r = await client.responses.create({ model: 'box/echo', input: 'ada', tools: [crm] } as never);
    const call = r.output.find((o) => o.type === 'function_call') as unknown as Record<string, unknown>;
    expect(call).toMatchObject({ type: 'function_call', name: 'lookup', namespace: 'crm' });
    expect(JSON.parse(call.arguments as string)).toEqual({ q: 'ada' });
    expect(r.tools).toEqual([{ type: 'namespace', name: 'crm', tools: [{ ...lookup, description: 'The CRM.\n\nFind a customer.' }] }]);

    // The call and its output sent back (as Codex does, with the namespace): the model sees the result.
    const next = await client.responses.create({
      model: 'box/echo',
      tools: [crm],
      input: [
        { role: 'user', content: 'ada' },
        { type: 'function_call', call_id: call.call_id, name: 'lookup', namespace: 'crm', arguments: call.arguments },
        { type: 'function_call_output', call_id: call.call_id as string, output: 'Ada Lovelace, customer 7' },
      ],
    } as never);
    expect(next.output_text).toBe('Ada Lovelace, customer 7');
  });

  it('streamed: the call items carry name and namespace', async () => {
    const stream = await client.responses.create({
      model: 'box/echo',
      input: 'ada',
      tools: [lookup as never, crm],
      tool_choice: { type: 'function', name: 'lookup' },
      stream: true,
    } as never);
    const items: Record<string, unknown>[] = [];
    for await (const e of stream as unknown as AsyncIterable<{ type: string; item?: Record<string, unknown> }>) {
      if (e.type === 'response.output_item.added' || e.type === 'response.output_item.done') items.push(e.item!);
    }
    // tool_choice names the plain function; the namespaced one of the same name is another tool.
    expect(items.map((i) => [i.name, i.namespace])).toEqual([
      ['lookup', undefined],
      ['lookup', undefined],
    ]);
    const ns = await client.responses.create({ model: 'box/echo', input: 'ada', tools: [crm], stream: true } as never);
    const done: Record<string, unknown>[] = [];
    for await (const e of ns as unknown as AsyncIterable<{ type: string; item?: Record<string, unknown> }>)
      if (e.type === 'response.output_item.done') done.push(e.item!);
    expect(done).toMatchObject([{ type: 'function_call', name: 'lookup', namespace: 'crm', status: 'completed' }]);
  });

  it('an upstream sees one flat function name and its call is split back', async () => {
    oa.requests.length = 0;
    const r = await client.responses.create({ model: 'oa/fake-gpt', input: 'ada', tools: [crm] } as never);
    const body = oa.requests.find((q) => q.path.endsWith('/chat/completions'))!.body as { tools: { function: { name: string } }[] };
    expect(body.tools.map((t) => t.function.name)).toEqual(['crm__lookup']);
    expect(r.output.find((o) => o.type === 'function_call')).toMatchObject({ name: 'lookup', namespace: 'crm' });
  });

  it('bad namespaces and hosted tools are refused naming the field', async () => {
    const bad = async (tools: unknown[]) => {
      const res = await svc.api('/v1/responses', { method: 'POST', json: { model: 'box/echo', input: 'x', tools } });
      expect(res.status).toBe(400);
      return errorOf(res);
    };
    expect((await bad([{ type: 'namespace', name: 'a.b', tools: [lookup] }])).param).toBe('tools[0].name');
    expect((await bad([{ type: 'namespace', name: 'crm', tools: [{ type: 'web_search' }] }])).param).toBe('tools[0].tools[0].type');
    const hosted = await bad([lookup, { type: 'web_search' }]);
    expect(hosted.param).toBe('tools[1].type');
    expect(hosted.message).toContain('web_search = "disabled"');
  });

  it('include: reasoning.encrypted_content is accepted, anything else is refused naming it', async () => {
    const ok = await client.responses.create({ model: 'box/echo', input: 'hi', include: ['reasoning.encrypted_content'] });
    expect(ok.output_text).toBe('Echo: hi');
    const res = await svc.api('/v1/responses', {
      method: 'POST',
      json: { model: 'box/echo', input: 'x', include: ['reasoning.encrypted_content', 'file_search_call.results'] },
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).param).toBe('include[1]');
  });
});
