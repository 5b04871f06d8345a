/**
 * Hosted tools (issue 34) with fake VMs: the gateway runs `shell` (Responses) and the code
 * execution server tool (Messages) in boxes for `box/echo` and for an upstream, through the
 * official clients. FakeRuntime runs a box's commands on this machine (so `uname -s` says
 * Linux); its code interpreter has no daemon, so code_interpreter runs in
 * hosted-tools.vm.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessagesStreamEvent, ResponsesStreamEvent } from '@box/contract/inference-stream';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { errorOf, startTestService, type TestService } from '../../test-support/harness.js';

let svc: TestService;
let openai: OpenAI;
let anthropic: Anthropic;
/** An OpenAI-style upstream that calls the shell tool on every turn (the loop's bound). */
let looper: http.Server;
let looperCalls = 0;

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d), tuning: { hostedMaxCalls: 3 } });
  openai = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
  anthropic = new Anthropic({ apiKey: svc.key, baseURL: svc.url });
  looper = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.method === 'GET') return res.end(JSON.stringify({ object: 'list', data: [{ id: 'loop', object: 'model', created: 1, owned_by: 'x' }] }));
      looperCalls++;
      const call = {
        id: `call_${looperCalls}`,
        type: 'function',
        function: { name: 'shell', arguments: JSON.stringify({ commands: [`echo round ${looperCalls}`] }) },
      };
      res.end(
        JSON.stringify({
          id: 'chatcmpl-loop',
          object: 'chat.completion',
          created: 1,
          model: 'loop',
          choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((r) => looper.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(looper.address() as AddressInfo).port}/v1`;
  expect((await svc.api('/v1/engines', { method: 'POST', json: { name: 'up', kind: 'openai', base_url: url } })).status).toBeLessThan(300);
});
afterAll(async () => {
  await svc?.close();
  await new Promise((r) => looper?.close(r));
});

const SHELL = { type: 'shell', environment: { type: 'container_auto' } } as const;
const box = async (id: string) => (await svc.api(`/v1/boxes/${id}`)).json();

describe('Responses: shell in a box', () => {
  it('runs the call in a new box named after the response, answers with its output; GET shows the same items', async () => {
    const r = await openai.responses.create({ model: 'box/echo', input: 'uname -s', tools: [SHELL] });
    expect(r.status).toBe('completed');
    expect(r.output.map((o) => o.type)).toEqual(['shell_call', 'shell_call_output', 'message']);
    const [call, out] = r.output;
    if (call?.type !== 'shell_call' || out?.type !== 'shell_call_output') throw new Error('not shell items');
    expect(call.action.commands).toEqual(['uname -s']);
    expect(call.environment).toMatchObject({ type: 'container_reference' });
    const boxId = (call.environment as { container_id: string }).container_id;
    expect(out.call_id).toBe(call.call_id);
    expect(out.output[0]).toMatchObject({ stdout: 'Linux\n', outcome: { type: 'exit', exit_code: 0 } });
    expect(r.output_text).toContain('Linux');
    expect(r.tools).toEqual([{ type: 'shell', environment: { type: 'container_auto' } }]);
    const b = await box(boxId);
    expect(b).toMatchObject({ status: 'running', name: `resp-${r.id.slice(5)}`, auto_sleep: { automatic: true } });
    const app = await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'hosted-tools' } })).json();
    expect(b.app_id).toBe(app.id);
    const got = await openai.responses.retrieve(r.id);
    expect(got.output).toEqual(r.output);

    // the conversation goes on in the same box; its state is there
    await openai.responses.create({ model: 'box/echo', input: 'echo kept > /tmp/hosted-state', tools: [SHELL], previous_response_id: r.id });
    const next = await openai.responses.create({ model: 'box/echo', input: 'cat /tmp/hosted-state', tools: [SHELL], previous_response_id: r.id });
    const nextCall = next.output[0];
    expect(nextCall?.type === 'shell_call' && nextCall.environment).toEqual({ type: 'container_reference', container_id: boxId });
    expect(next.output_text).toContain('kept');
    expect(await (await svc.api('/v1/boxes?app_id=' + app.id)).json()).toMatchObject({ data: [{ box_id: boxId }] });
  });

  it('uses a box named by id, and refuses another key’s private box before anything runs', async () => {
    const app = await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'mine', mint_if_missing: true } })).json();
    const mine = await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name: 'mine', visibility: 'private' } })).json();
    const ref = { type: 'shell', environment: { type: 'container_reference', container_id: mine.box_id } } as const;
    const r = await openai.responses.create({ model: 'box/echo', input: 'echo hi', tools: [ref] });
    expect(r.output[0]).toMatchObject({ type: 'shell_call', environment: { container_id: mine.box_id } });
    expect(r.output_text).toContain('hi');

    const other = await (await svc.api('/v1/api-keys', { method: 'POST', json: { name: 'other', scope: 'organization' } })).json();
    const res = await fetch(`${svc.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'box/echo', input: 'echo no', tools: [ref] }),
    });
    expect(res.status).toBe(403);
    const missing = await svc.api('/v1/responses', {
      method: 'POST',
      json: { model: 'box/echo', input: 'x', tools: [{ type: 'code_interpreter', container: 'cntr_abc' }] },
    });
    expect(missing.status).toBe(400);
    expect((await errorOf(missing)).param).toBe('tools[0].container');
    const queued = await svc.api('/v1/responses', { method: 'POST', json: { model: 'box/echo', input: 'x', tools: [SHELL], background: true } });
    expect(queued.status).toBe(400);
    expect((await errorOf(queued)).param).toBe('background');
  });

  it('streams the shell call and its output as the openai client reads them', async () => {
    const events: { type: string }[] = [];
    const stream = await openai.responses.create({ model: 'box/echo', input: 'uname -s', tools: [SHELL], stream: true });
    for await (const e of stream) events.push(e);
    for (const e of events) expect(ResponsesStreamEvent.safeParse(e).error?.issues ?? [], JSON.stringify(e)).toEqual([]);
    const types = events.map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'response.shell_call_command.added',
        'response.shell_call_command.done',
        'response.shell_call_output_content.delta',
        'response.shell_call_output_content.done',
        'response.output_text.delta',
      ]),
    );
    const done = events.at(-1) as { type: string; response: OpenAI.Responses.Response };
    expect(done.type).toBe('response.completed');
    expect(done.response.output_text ?? '').toBe('');
    const got = await openai.responses.retrieve(done.response.id);
    expect(done.response.output).toEqual(got.output);
    const added = events.filter((e) => e.type === 'response.output_item.added').map((e) => (e as unknown as { item: { id: string } }).item.id);
    expect(added).toEqual(got.output.map((o) => o.id));
    expect(got.output_text).toContain('Linux');
  });

  it('tool_choice names a hosted tool; a client function beside it stays the client’s', async () => {
    const fn = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false } as const;
    const forced = await openai.responses.create({ model: 'box/echo', input: 'echo forced', tools: [fn, SHELL], tool_choice: { type: 'shell' } });
    expect(forced.output.map((o) => o.type)).toEqual(['shell_call', 'shell_call_output', 'message']);
    expect(forced.tool_choice).toEqual({ type: 'shell' });
    const client = await openai.responses.create({ model: 'box/echo', input: 'Paris', tools: [fn, SHELL], tool_choice: 'required' });
    expect(client.output).toMatchObject([{ type: 'function_call', name: 'get_weather' }]);
    const only = await openai.responses.create({ model: 'box/echo', input: 'echo required', tools: [SHELL], tool_choice: 'required' });
    expect(only.output_text).toContain('required');
  });

  it('stops incomplete after the bound of hosted calls, on an upstream model', async () => {
    looperCalls = 0;
    const r = await openai.responses.create({ model: 'up/loop', input: 'go', tools: [SHELL] });
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details).toEqual({ reason: 'max_tool_calls' });
    expect(r.output.filter((o) => o.type === 'shell_call')).toHaveLength(3);
    expect(looperCalls).toBe(4);
    const outs = r.output.filter((o) => o.type === 'shell_call_output');
    expect(outs.map((o) => o.output[0]?.stdout)).toEqual(['round 1\n', 'round 2\n', 'round 3\n']);
  });
});

describe('Messages: the code execution server tool', () => {
  const TOOL = { type: 'code_execution_20250825', name: 'code_execution' } as const;

  it('runs bash in a box; the container is reused when sent back; streamed the same', async () => {
    const m = await anthropic.messages.create({ model: 'box/echo', max_tokens: 100, messages: [{ role: 'user', content: 'uname -s' }], tools: [TOOL] });
    expect(m.content.map((b) => b.type)).toEqual(['server_tool_use', 'bash_code_execution_tool_result', 'text']);
    const [use, result, text] = m.content;
    if (use?.type !== 'server_tool_use' || result?.type !== 'bash_code_execution_tool_result' || text?.type !== 'text') throw new Error('blocks');
    expect(use).toMatchObject({ name: 'bash_code_execution', input: { command: 'uname -s' } });
    expect(result.tool_use_id).toBe(use.id);
    expect(result.content).toMatchObject({ type: 'bash_code_execution_result', stdout: 'Linux\n', return_code: 0 });
    expect(text.text).toContain('Linux');
    expect(m.container?.id).toMatch(/^box_/);
    expect((await box(m.container!.id)).status).toBe('running');
    // GET /v1/responses/{id} shows it Responses-shaped: the command as a shell call and its output
    const got = await openai.responses.retrieve(m.id);
    expect(got.tools).toEqual([{ type: 'code_execution_20250825', name: 'code_execution' }]);
    expect(got.output.map((o) => o.type)).toEqual(['shell_call', 'shell_call_output', 'message']);
    expect(got.output[1]).toMatchObject({ call_id: use.id, output: [{ stdout: 'Linux\n' }] });

    const again = await anthropic.messages.create({
      model: 'box/echo',
      max_tokens: 100,
      container: m.container!.id,
      messages: [
        { role: 'user', content: 'uname -s' },
        { role: 'assistant', content: m.content as Anthropic.ContentBlockParam[] },
        { role: 'user', content: 'echo second' },
      ],
      tools: [TOOL],
    });
    expect(again.container?.id).toBe(m.container!.id);
    expect(again.content.at(-1)).toMatchObject({ type: 'text', text: expect.stringContaining('second') });

    const events: unknown[] = [];
    const stream = anthropic.messages.stream({ model: 'box/echo', max_tokens: 100, messages: [{ role: 'user', content: 'uname -s' }], tools: [TOOL] });
    stream.on('streamEvent', (e) => events.push(structuredClone(e))); // the client then grows message_start's message
    const final = await stream.finalMessage();
    for (const e of events) expect(MessagesStreamEvent.safeParse(e).error?.issues ?? [], JSON.stringify(e)).toEqual([]);
    expect(final.content.map((b) => b.type)).toEqual(['server_tool_use', 'bash_code_execution_tool_result', 'text']);
    expect(final.content[1]).toMatchObject({ content: { stdout: 'Linux\n' } });
  });
});

describe('hosted boxes', () => {
  it('are terminated once idle past BOX_HOSTED_BOX_TTL; other boxes are left', async () => {
    const app = await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'hosted-tools' } })).json();
    const before = (await (await svc.api(`/v1/boxes?app_id=${app.id}`)).json()).data.map((b: { box_id: string }) => b.box_id);
    expect(before.length).toBeGreaterThan(0);
    const reaper = svc.ctx.services.inference.hostedReaper;
    expect(await reaper.sweep(Date.now())).toEqual([]);
    expect((await reaper.sweep(Date.now() + 1201_000)).sort()).toEqual([...before].sort());
    for (const id of before) expect((await box(id)).status).toBe('terminated');
    const live = (await (await svc.api('/v1/boxes')).json()).data as { name: string; status: string }[];
    expect(live.find((b) => b.name === 'mine')?.status).toBe('running');
  });
});
