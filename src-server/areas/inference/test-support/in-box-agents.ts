/**
 * The agent frameworks of the in-box client (in-box-client.ts, issue 24): the Vercel AI SDK,
 * LangChain and the OpenAI Agents SDK, run inside a box on its own credential, as
 * agent-clients.test.ts runs them on the host. Each gets the proxied fetch the box needs
 * (its egress proxy; node's fetch ignores http_proxy) through its own client option, and
 * returns what the library reported; the test judges it.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import { HumanMessage, ToolMessage, type AIMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool as agentTool } from '@openai/agents';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { z } from 'zod';

interface BoxEnv {
  openaiKey: string;
  openaiBase: string;
  anthropicKey: string;
  anthropicBase: string;
  fetch: typeof fetch;
}

const PARAMS = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } as const;
const weather = (city: string) => `sunny in ${city}`;

/** generateText and streamText with a tool over several steps, on the OpenAI (Responses, chat) and Anthropic providers. */
export async function vercelAi(env: BoxEnv, model: string) {
  const calls: unknown[] = [];
  const tools = {
    get_weather: tool({
      description: 'weather',
      inputSchema: jsonSchema<{ city: string }>(PARAMS as never),
      execute: async ({ city }) => {
        calls.push({ city });
        return weather(city);
      },
    }),
  };
  const oa = createOpenAI({ apiKey: env.openaiKey, baseURL: env.openaiBase, fetch: env.fetch });
  const an = createAnthropic({ apiKey: env.anthropicKey, baseURL: `${env.anthropicBase}/v1`, fetch: env.fetch });
  const out: Record<string, unknown> = {};
  for (const [name, m] of [
    ['responses', oa(model)],
    ['chat', oa.chat(model)],
    ['anthropic', an(model)],
  ] as const) {
    calls.length = 0;
    const g = await generateText({ model: m, prompt: 'Kyiv', tools, maxOutputTokens: 100, stopWhen: stepCountIs(3) });
    const s = streamText({ model: m, prompt: 'Bern', tools, maxOutputTokens: 100, stopWhen: stepCountIs(3) });
    const parts: string[] = [];
    for await (const part of s.textStream) parts.push(part);
    const steps = await s.steps;
    out[name] = {
      generate: {
        steps: g.steps.length,
        toolCall: g.steps[0]?.toolCalls[0] && { name: g.steps[0].toolCalls[0].toolName, input: g.steps[0].toolCalls[0].input },
        toolResult: g.steps[0]?.toolResults[0]?.output,
        text: g.text,
        usage: g.totalUsage,
      },
      stream: {
        steps: steps.length,
        toolCall: steps[0]?.toolCalls[0] && { name: steps[0].toolCalls[0].toolName, input: steps[0].toolCalls[0].input },
        text: parts.join(''),
        parts: parts.length,
        usage: await s.totalUsage,
      },
      executed: [...calls],
    };
  }
  return out;
}

/** bindTools on ChatOpenAI (chat and Responses APIs) and ChatAnthropic: the tool call returned, then the answer to its result. */
export async function langchain(env: BoxEnv, model: string) {
  const weatherTool = { type: 'function' as const, function: { name: 'get_weather', description: 'weather', parameters: PARAMS } };
  const configuration = { baseURL: env.openaiBase, fetch: env.fetch };
  const out: Record<string, unknown> = {};
  for (const [name, llm] of [
    ['ChatOpenAI', new ChatOpenAI({ model, apiKey: env.openaiKey, maxRetries: 0, configuration })],
    ['ChatOpenAI/responses', new ChatOpenAI({ model, apiKey: env.openaiKey, maxRetries: 0, useResponsesApi: true, configuration })],
    [
      'ChatAnthropic',
      new ChatAnthropic({ model, apiKey: env.anthropicKey, maxRetries: 0, anthropicApiUrl: env.anthropicBase, clientOptions: { fetch: env.fetch } }),
    ],
  ] as const) {
    const bound = llm.bindTools([weatherTool]);
    const ask = new HumanMessage('Lima');
    const ai = (await bound.invoke([ask])) as AIMessage;
    const call = ai.tool_calls?.[0];
    if (!call) {
      out[name] = { first: ai.content };
      continue;
    }
    const final = await bound.invoke([ask, ai, new ToolMessage({ tool_call_id: call.id!, content: weather(call.args.city) })]);
    const text = typeof final.content === 'string' ? final.content : JSON.stringify(final.content);
    out[name] = { toolCall: { name: call.name, args: call.args }, text };
  }
  return out;
}

/** @openai/agents: an agent with a function tool, run to its final output over Responses and over Chat Completions. */
export async function openaiAgents(env: BoxEnv, model: string) {
  setTracingDisabled(true);
  setDefaultOpenAIClient(new OpenAI({ apiKey: env.openaiKey, baseURL: env.openaiBase, fetch: env.fetch, maxRetries: 0 }));
  const out: Record<string, unknown> = {};
  for (const api of ['responses', 'chat_completions'] as const) {
    setOpenAIAPI(api);
    const calls: unknown[] = [];
    const getWeather = agentTool({
      name: 'get_weather',
      description: 'weather',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        calls.push({ city });
        return weather(city);
      },
    });
    const agent = new Agent({ name: 'forecaster', instructions: 'Use the tool.', model, tools: [getWeather] });
    const result = await run(agent, 'Quito');
    out[api] = { finalOutput: result.finalOutput, executed: calls };
  }
  return out;
}
