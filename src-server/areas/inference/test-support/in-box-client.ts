/**
 * The agent-SDK client that box-sdks.vm.test.ts runs inside a real box (issue 24): the
 * official `openai` and `@anthropic-ai/sdk` clients, the Vercel AI SDK, LangChain and the
 * OpenAI Agents SDK (in-box-agents.ts), bundled with esbuild into one file (the box has node
 * but no registry), configured only from the box's own environment (OPENAI_BASE_URL /
 * OPENAI_API_KEY, ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY). For each model named on the
 * command line: a streamed Responses function-call round trip, a streamed Chat Completions
 * tool round trip, a streamed Messages tool_use round trip, then each framework's tool loop.
 * Prints one JSON report of what the libraries returned (and how many HTTP requests they
 * made); the test judges it.
 *
 * A box reaches the gateway only through its egress proxy (http_proxy). Node's built-in fetch
 * ignores the proxy variables, so the SDKs get undici's fetch with EnvHttpProxyAgent, which
 * reads them: what a Node agent in a box does (Node >= 24: NODE_USE_ENV_PROXY=1 instead).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';
import { langchain, openaiAgents, vercelAi } from './in-box-agents.js';

const dispatcher = new EnvHttpProxyAgent();
let requests = 0;
const proxied = ((url: string, init?: Record<string, unknown>) => {
  requests++;
  return undiciFetch(url, { ...init, dispatcher } as never);
}) as unknown as typeof fetch;

const env = (k: string) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set in this box`);
  return v;
};
const boxEnv = {
  openaiKey: env('OPENAI_API_KEY'),
  openaiBase: env('OPENAI_BASE_URL'),
  anthropicKey: env('ANTHROPIC_API_KEY'),
  anthropicBase: env('ANTHROPIC_BASE_URL'),
  fetch: proxied,
};
const openai = new OpenAI({ apiKey: boxEnv.openaiKey, baseURL: boxEnv.openaiBase, fetch: proxied, maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: boxEnv.anthropicKey, baseURL: boxEnv.anthropicBase, fetch: proxied, maxRetries: 0 });

const PARAMS = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } as const;
const weather = (city: string) => `sunny in ${city}`;

async function responses(model: string) {
  const tools = [{ type: 'function' as const, name: 'get_weather', description: 'weather', parameters: PARAMS, strict: true }];
  const argDeltas: string[] = [];
  const s = openai.responses.stream({ model, input: 'Paris', tools, tool_choice: 'required' });
  s.on('response.function_call_arguments.delta', (e) => argDeltas.push(e.delta));
  const first = await s.finalResponse();
  const call = first.output.find((o) => o.type === 'function_call');
  if (call?.type !== 'function_call') return { first: first.output };
  const textDeltas: string[] = [];
  const s2 = openai.responses.stream({
    model,
    tools,
    previous_response_id: first.id,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: weather(JSON.parse(call.arguments).city) }],
  });
  s2.on('response.output_text.delta', (e) => textDeltas.push(e.delta));
  const second = await s2.finalResponse();
  return { name: call.name, arguments: call.arguments, argDeltas, status: second.status, answer: second.output_text, textDeltas };
}

async function chat(model: string) {
  const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: PARAMS } }];
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'use tools' },
    { role: 'user', content: 'Rome' },
  ];
  const r1 = await openai.chat.completions.stream({ model, messages, tools }).finalChatCompletion();
  const call = r1.choices[0]!.message.tool_calls?.[0];
  if (call?.type !== 'function') return { first: r1.choices[0] };
  messages.push(r1.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: weather(JSON.parse(call.function.arguments).city) });
  const parts: string[] = [];
  const s2 = openai.chat.completions.stream({ model, messages, tools, stream_options: { include_usage: true } });
  s2.on('content', (d) => parts.push(d));
  const r2 = await s2.finalChatCompletion();
  return {
    finish1: r1.choices[0]!.finish_reason,
    name: call.function.name,
    arguments: call.function.arguments,
    finish2: r2.choices[0]!.finish_reason,
    answer: r2.choices[0]!.message.content,
    parts,
    usage: r2.usage,
  };
}

async function messages(model: string) {
  const tools = [{ name: 'get_weather', description: 'weather', input_schema: PARAMS as unknown as Anthropic.Tool.InputSchema }];
  const ask: Anthropic.MessageParam[] = [{ role: 'user', content: 'Oslo' }];
  const first = await anthropic.messages.stream({ model, max_tokens: 100, system: 'use tools', tools, messages: ask }).finalMessage();
  const use = first.content.find((b) => b.type === 'tool_use');
  if (use?.type !== 'tool_use') return { first: first.content };
  const texts: string[] = [];
  const s2 = anthropic.messages.stream({
    model,
    max_tokens: 100,
    tools,
    messages: [
      ...ask,
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: weather((use.input as { city: string }).city) }] },
    ],
  });
  s2.on('text', (t) => texts.push(t));
  const second = await s2.finalMessage();
  return { stop1: first.stop_reason, name: use.name, input: use.input, stop2: second.stop_reason, answer: second.content, texts };
}

async function main() {
  const report: Record<string, unknown> = { node: process.version };
  for (const model of process.argv.slice(2)) {
    const one: Record<string, unknown> = {};
    for (const [k, fn] of [
      ['responses', responses],
      ['chat', chat],
      ['messages', messages],
      ['vercelAi', (m: string) => vercelAi(boxEnv, m)],
      ['langchain', (m: string) => langchain(boxEnv, m)],
      ['openaiAgents', (m: string) => openaiAgents(boxEnv, m)],
    ] as const) {
      try {
        one[k] = await fn(model);
      } catch (e) {
        one[k] = { error: String((e as Error)?.stack ?? e) };
      }
    }
    report[model] = one;
  }
  report.requests = requests;
  console.log(JSON.stringify(report));
}

void main();
