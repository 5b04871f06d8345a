import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
import { startInferenceService } from './test-support/service.js';
import { TINY_REPLY, writeTinyModel } from './test-support/tiny-model.js';

// Issue 24 on the embedded engine: tool calls in the model's own chat template, arguments
// grammar-constrained to the tool's schema and streamed; the real clients against it. The
// tiny test model never chooses a tool by itself, so the tests ask for one (tool_choice
// required / a named tool, as agents do for their first step); then it answers in text.
let svc: TestService;
const model = 'local/tiny';
beforeAll(async () => {
  const file = writeTinyModel(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tiny-tools-')), 'tiny.gguf'));
  svc = await startInferenceService({ tuning: { llama: { sequences: 2, contextSize: 4096 } } });
  expect((await svc.api('/v1/engines/local/models', { method: 'POST', json: { path: file } })).status).toBe(201);
});
afterAll(() => svc?.close());

const CITIES = ['Paris', 'Lyon', 'Nice'];
const PARAMS = { type: 'object', properties: { city: { type: 'string', enum: CITIES } }, required: ['city'], additionalProperties: false } as const;
const openai = () => new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, maxRetries: 0 });

describe('embedded engine: tools and streaming', () => {
  it('openai responses: a forced call streams grammar-valid arguments; the result turn answers in text', async () => {
    const tools = [{ type: 'function' as const, name: 'get_weather', parameters: PARAMS, strict: true }];
    const s = openai().responses.stream({ model, input: 'weather?', tools, tool_choice: 'required', temperature: 0 });
    const chunks: string[] = [];
    s.on('response.function_call_arguments.delta', (e) => chunks.push(e.delta));
    const r = await s.finalResponse();
    const call = r.output.find((o) => o.type === 'function_call')!;
    expect(call.type).toBe('function_call');
    if (call.type !== 'function_call') return;
    expect(CITIES).toContain(JSON.parse(call.arguments).city);
    expect(chunks.length).toBeGreaterThan(1);
    expect(JSON.parse(chunks.join(''))).toEqual(JSON.parse(call.arguments));
    const next = await openai().responses.create({
      model,
      tools,
      temperature: 0,
      previous_response_id: r.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
    });
    expect(next.status).toBe('completed');
    expect(next.output_text).toBe(TINY_REPLY);
  });

  it('chat: streamed text arrives token by token; anthropic: a named tool_use', async () => {
    const s = openai().chat.completions.stream({ model, messages: [{ role: 'user', content: 'hi' }], temperature: 0 });
    const parts: string[] = [];
    s.on('content', (d) => parts.push(d));
    const c = await s.finalChatCompletion();
    expect(c.choices[0]!.message.content).toBe(TINY_REPLY);
    expect(parts.length).toBeGreaterThanOrEqual(5);
    const anthropic = new Anthropic({ apiKey: svc.key, baseURL: svc.url, maxRetries: 0 });
    const m = await anthropic.messages
      .stream({
        model,
        max_tokens: 100,
        temperature: 0,
        tools: [{ name: 'get_weather', input_schema: PARAMS as never }],
        tool_choice: { type: 'tool', name: 'get_weather' },
        messages: [{ role: 'user', content: 'weather?' }],
      })
      .finalMessage();
    expect(m.stop_reason).toBe('tool_use');
    const use = m.content.find((b) => b.type === 'tool_use');
    expect(use && use.type === 'tool_use' && CITIES.includes((use.input as { city: string }).city)).toBe(true);
  });

  it('Vercel AI SDK, LangChain and the Agents SDK run a tool step, then answer', async () => {
    const oa = createOpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
    const an = createAnthropic({ apiKey: svc.key, baseURL: `${svc.url}/v1` });
    const tools = { get_weather: tool({ inputSchema: jsonSchema<{ city: string }>(PARAMS as never), execute: async ({ city }) => `sunny in ${city}` }) };
    const firstStepCalls = ({ stepNumber }: { stepNumber: number }) => ({ toolChoice: stepNumber === 0 ? ('required' as const) : ('none' as const) });
    for (const m of [oa(model), oa.chat(model), an(model)]) {
      const g = await generateText({ model: m, prompt: 'weather?', tools, temperature: 0, stopWhen: stepCountIs(3), prepareStep: firstStepCalls });
      expect(g.steps[0]!.toolResults[0]!.output).toMatch(/^sunny in (Paris|Lyon|Nice)$/);
      expect(g.text).toBe(TINY_REPLY);
      const st = streamText({ model: m, prompt: 'weather?', tools, temperature: 0, stopWhen: stepCountIs(3), prepareStep: firstStepCalls });
      let text = '';
      for await (const t of st.textStream) text += t;
      expect(text).toBe(TINY_REPLY);
    }
    const weatherTool = { type: 'function' as const, function: { name: 'get_weather', parameters: PARAMS } };
    for (const llm of [
      new ChatOpenAI({ model, apiKey: svc.key, temperature: 0, configuration: { baseURL: `${svc.url}/v1` } }),
      new ChatAnthropic({ model, apiKey: svc.key, temperature: 0, anthropicApiUrl: svc.url }),
    ]) {
      const ask = new HumanMessage('weather?');
      const ai = (await llm.bindTools([weatherTool], { tool_choice: 'get_weather' }).invoke([ask])) as AIMessage;
      expect(CITIES).toContain(ai.tool_calls![0]!.args.city);
      const final = await llm.bindTools([weatherTool]).invoke([ask, ai, new ToolMessage({ tool_call_id: ai.tool_calls![0]!.id!, content: 'sunny' })]);
      expect(final.content).toBe(TINY_REPLY);
    }
    setTracingDisabled(true);
    setDefaultOpenAIClient(openai());
    setOpenAIAPI('responses');
    const getWeather = agentTool({
      name: 'get_weather',
      description: 'weather',
      parameters: z.object({ city: z.enum(['Paris', 'Lyon', 'Nice']) }),
      execute: async ({ city }) => `sunny in ${city}`,
    });
    const agent = new Agent({
      name: 'w',
      instructions: 'Use the tool.',
      model,
      tools: [getWeather],
      modelSettings: { toolChoice: 'required', temperature: 0 },
    });
    const result = await run(agent, 'weather?');
    expect(result.finalOutput).toBe(TINY_REPLY);
  }, 240_000); // ~20 tiny-model generations: seconds on a quiet machine, much more on a loaded one

  it('a prompt longer than the context is a 400 with both token counts, never truncated', async () => {
    const long = 'word '.repeat(3000);
    const res = await svc.api('/v1/chat/completions', { method: 'POST', json: { model, messages: [{ role: 'user', content: long }] } });
    expect(res.status).toBe(400);
    const e = (await res.json()).error;
    expect(e).toMatchObject({ code: 'context_length_exceeded', param: 'messages' });
    expect(e.message).toMatch(/The prompt is \d+ tokens; the model's context holds \d+/);
  });
});
