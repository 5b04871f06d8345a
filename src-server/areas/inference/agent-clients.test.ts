import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool as agentTool } from '@openai/agents';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TestService } from '../../test-support/harness.js';
import { startFakeUpstream, type FakeUpstream } from './test-support/fake-upstreams.js';
import { startInferenceService } from './test-support/service.js';

// Issue 24: the real clients, streamed and not, with tools, in all three styles; against the
// built-in echo engine's tool mode and against scripted OpenAI- and Anthropic-compatible
// upstreams (so each style is also translated into the other upstream style).
let svc: TestService;
let oaUp: FakeUpstream;
let anUp: FakeUpstream;
beforeAll(async () => {
  svc = await startInferenceService();
  oaUp = await startFakeUpstream('openai');
  anUp = await startFakeUpstream('anthropic');
  await svc.api('/v1/engines', { method: 'POST', json: { name: 'oa', kind: 'openai', base_url: oaUp.url } });
  await svc.api('/v1/engines', { method: 'POST', json: { name: 'an', kind: 'anthropic', base_url: anUp.url } });
});
afterAll(async () => {
  await svc?.close();
  await oaUp?.close();
  await anUp?.close();
});

const PARAMS = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } as const;
const weather = (city: string) => `sunny in ${city}`;
/** What each engine answers after the tool result: echo repeats it; the scripted upstreams say "result: ...". */
const MODELS = [
  ['box/echo', (r: string) => r],
  ['oa/fake-gpt', (r: string) => `result: ${r}`],
  ['an/fake-claude', (r: string) => `result: ${r}`],
] as const;

describe.each(MODELS)('%s', (model, after) => {
  const openai = () => new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
  const anthropic = () => new Anthropic({ apiKey: svc.key, baseURL: svc.url, maxRetries: 0 });

  it('openai responses: responses.stream, a function-call round trip (input items and previous_response_id)', async () => {
    const deltas: string[] = [];
    const stream = openai().responses.stream({ model, input: 'stream me' });
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
    const done = await stream.finalResponse();
    expect(done.status).toBe('completed');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(done.output_text);
    expect((await openai().responses.retrieve(done.id)).output_text).toBe(done.output_text);

    const tools = [{ type: 'function' as const, name: 'get_weather', description: 'weather', parameters: PARAMS, strict: true }];
    const first = await openai().responses.create({ model, input: 'Paris', tools });
    const call = first.output.find((o) => o.type === 'function_call')!;
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather' });
    const city = JSON.parse(call.arguments).city;
    expect(city).toBe('Paris');
    const second = await openai().responses.create({
      model,
      tools,
      input: [{ role: 'user', content: 'Paris' }, call, { type: 'function_call_output', call_id: call.call_id, output: weather(city) }],
    });
    expect(second.output_text).toBe(after(weather(city)));
    const chained = await openai().responses.create({
      model,
      tools,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: weather(city) }],
    });
    expect(chained.previous_response_id).toBe(first.id);
    expect(chained.output_text).toBe(after(weather(city)));

    const streamed = openai().responses.stream({ model, input: 'Lyon', tools, tool_choice: 'required' });
    const argDeltas: string[] = [];
    streamed.on('response.function_call_arguments.delta', (e) => argDeltas.push(e.delta));
    const fin = await streamed.finalResponse();
    const c2 = fin.output.find((o) => o.type === 'function_call')!;
    expect(c2.type === 'function_call' && JSON.parse(c2.arguments)).toEqual({ city: 'Lyon' });
    expect(argDeltas.join('')).toBe(c2.type === 'function_call' ? c2.arguments : '');
  });

  it('openai chat: chat.completions.stream with usage, and a tool round trip streamed', async () => {
    const s = openai().chat.completions.stream({ model, messages: [{ role: 'user', content: 'hello chat' }], stream_options: { include_usage: true } });
    const parts: string[] = [];
    s.on('content', (d) => parts.push(d));
    const c = await s.finalChatCompletion();
    expect(parts.join('')).toBe(c.choices[0]!.message.content);
    expect(c.usage?.completion_tokens).toBeGreaterThan(0);

    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: PARAMS } }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'use tools' },
      { role: 'user', content: 'Rome' },
    ];
    const ts = openai().chat.completions.stream({ model, messages, tools });
    const r1 = await ts.finalChatCompletion();
    expect(r1.choices[0]!.finish_reason).toBe('tool_calls');
    const call = r1.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Rome' });
    messages.push(r1.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: weather('Rome') });
    const r2 = await openai().chat.completions.create({ model, messages, tools });
    expect(r2.choices[0]!.message.content).toBe(after(weather('Rome')));
    expect(r2.choices[0]!.finish_reason).toBe('stop');
  });

  it('anthropic: messages.stream, and a tool_use round trip (system, tool_result)', async () => {
    const s = anthropic().messages.stream({ model, max_tokens: 100, system: 'be brief', messages: [{ role: 'user', content: 'stream claude' }] });
    const texts: string[] = [];
    s.on('text', (t) => texts.push(t));
    const m = await s.finalMessage();
    expect(texts.join('')).toBe((m.content[0] as { text: string }).text);
    expect(m.stop_reason).toBe('end_turn');

    const tools = [{ name: 'get_weather', description: 'weather', input_schema: PARAMS as unknown as Anthropic.Tool.InputSchema }];
    const ask: Anthropic.MessageParam[] = [{ role: 'user', content: 'Oslo' }];
    const first = await anthropic().messages.stream({ model, max_tokens: 100, tools, messages: ask }).finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b) => b.type === 'tool_use')!;
    expect(use.type === 'tool_use' && use.input).toEqual({ city: 'Oslo' });
    const second = await anthropic().messages.create({
      model,
      max_tokens: 100,
      tools,
      messages: [
        ...ask,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.type === 'tool_use' ? use.id : '', content: weather('Oslo') }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: after(weather('Oslo')) }]);
  });

  it('Vercel AI SDK: generateText and streamText with tools over several steps (responses, chat, anthropic providers)', async () => {
    const oa = createOpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
    const an = createAnthropic({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
    const tools = {
      get_weather: tool({
        description: 'weather',
        inputSchema: jsonSchema<{ city: string }>(PARAMS as never),
        execute: async ({ city }) => weather(city),
      }),
    };
    for (const [name, m] of [
      ['responses', oa(model)],
      ['chat', oa.chat(model)],
      ['anthropic', an(model)],
    ] as const) {
      const g = await generateText({ model: m, prompt: 'Kyiv', tools, stopWhen: stepCountIs(3) });
      expect(g.steps.length, name).toBe(2);
      expect(g.steps[0]!.toolCalls[0]!.input, name).toEqual({ city: 'Kyiv' });
      expect(g.text, name).toBe(after(weather('Kyiv')));
      const s = streamText({ model: m, prompt: 'Bern', tools, stopWhen: stepCountIs(3) });
      let streamed = '';
      for await (const part of s.textStream) streamed += part;
      expect(streamed, name).toBe(after(weather('Bern')));
      expect((await s.steps).length, name).toBe(2);
    }
  });

  it('LangChain: bindTools on ChatOpenAI (both APIs) and ChatAnthropic, then the tool result', async () => {
    const weatherTool = { type: 'function' as const, function: { name: 'get_weather', description: 'weather', parameters: PARAMS } };
    for (const llm of [
      new ChatOpenAI({ model, apiKey: svc.key, configuration: { baseURL: `${svc.url}/v1` } }),
      new ChatOpenAI({ model, apiKey: svc.key, useResponsesApi: true, configuration: { baseURL: `${svc.url}/v1` } }),
      new ChatAnthropic({ model, apiKey: svc.key, anthropicApiUrl: svc.url }),
    ]) {
      const bound = llm.bindTools([weatherTool]);
      const ask = new HumanMessage('Lima');
      const ai = (await bound.invoke([ask])) as AIMessage;
      expect(ai.tool_calls?.[0]).toMatchObject({ name: 'get_weather', args: { city: 'Lima' } });
      const final = await bound.invoke([ask, ai, new ToolMessage({ tool_call_id: ai.tool_calls![0]!.id!, content: weather('Lima') })]);
      const text = typeof final.content === 'string' ? final.content : JSON.stringify(final.content);
      expect(text).toContain(after(weather('Lima')));
    }
  });

  it('OpenAI Agents SDK: an agent with a function tool runs to its final output', async () => {
    setTracingDisabled(true);
    setDefaultOpenAIClient(openai());
    for (const api of ['responses', 'chat_completions'] as const) {
      setOpenAIAPI(api);
      const getWeather = agentTool({
        name: 'get_weather',
        description: 'weather',
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }) => weather(city),
      });
      const agent = new Agent({ name: 'forecaster', instructions: 'Use the tool.', model, tools: [getWeather] });
      const result = await run(agent, 'Quito');
      expect(result.finalOutput, api).toBe(after(weather('Quito')));
    }
  });
});
