/**
 * Agent SDKs from inside a real box (issue 24): the official `openai` and `@anthropic-ai/sdk`
 * clients, the Vercel AI SDK (`ai` with @ai-sdk/openai and @ai-sdk/anthropic), LangChain
 * (@langchain/openai, @langchain/anthropic) and the OpenAI Agents SDK (@openai/agents),
 * bundled on the host into one file (test-support/in-box-client.ts + in-box-agents.ts; the
 * box has Debian's node and no registry), uploaded through the files API and run with the
 * box's own environment: its per-box credential and the gateway's address, reached through
 * the box's egress proxy. Each style streams a tool round trip and each framework runs its
 * tool loop, on the echo engine's tool mode and on a scripted Anthropic-style upstream on
 * the host (so the OpenAI styles are translated).
 *
 * The box's node is Debian bookworm's 18.20.4. Some of these packages declare a newer one
 * (`openai` >= 22, the @langchain/* packages >= 20; the AI SDK >= 18, @openai/agents none):
 * bundled for node18 they all run there, which this test proves. undici is the 6.x line
 * (bundle-client.ts), since undici 7 really does need node >= 20.18.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../test-support/harness.js';
import { bundleInBoxClient } from '../test-support/bundle-client.js';
import { startFakeUpstream, type FakeUpstream } from '../test-support/fake-upstreams.js';

const VM_TIMEOUT = 600_000;
let svc: TestService;
let up: FakeUpstream;
let boxId = '';

async function exec(command: string, timeout = 300) {
  const res = await svc.api(`/v1/boxes/${boxId}/exec`, { method: 'POST', json: { command, timeout } });
  if (res.status !== 200) throw new Error(`exec: ${res.status} ${await res.text()}`);
  const events = (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; data?: string; return_code?: number | null });
  const text = (type: string) => Buffer.concat(events.filter((e) => e.type === type).map((e) => Buffer.from(e.data!, 'base64'))).toString();
  return { stdout: text('stdout'), stderr: text('stderr'), code: events.find((e) => e.type === 'exit')?.return_code };
}

beforeAll(async () => {
  const [client] = await Promise.all([
    bundleInBoxClient(),
    (async () => {
      svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxsdk-') });
      up = await startFakeUpstream('anthropic', { record: false });
      await svc.api('/v1/engines', { method: 'POST', json: { name: 'an', kind: 'anthropic', base_url: up.url } });
      const appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'sdk', mint_if_missing: true } })).json()).id;
      const res = await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'sdk-vm' } });
      boxId = (await res.json()).box_id;
    })(),
  ]);
  const put = await svc.api(`/v1/boxes/${boxId}/files?path=/root/client.cjs`, { method: 'PUT', body: client });
  if (put.status !== 200) throw new Error(`upload: ${put.status} ${await put.text()}`);
}, VM_TIMEOUT);
afterAll(async () => {
  if (boxId) await svc.api(`/v1/boxes/${boxId}/terminate`, { method: 'POST' });
  await svc?.close();
  await up?.close();
});

const weather = (city: string) => `sunny in ${city}`;

describe('agent SDKs inside a box', () => {
  it(
    'openai, @anthropic-ai/sdk, the Vercel AI SDK, LangChain and @openai/agents: tool round trips and agent loops with the box credential',
    async () => {
      const env = await exec('printf "%s %s" "$OPENAI_API_KEY" "$OPENAI_BASE_URL"');
      expect(env.stdout).toMatch(/^bxb_\S+ http:\/\/host\.box\.internal:\d+\/v1$/);
      expect(env.stdout).not.toContain(svc.key);

      // --no-warnings: undici's EnvHttpProxyAgent says it is experimental on stderr.
      const run = await exec('node --no-warnings /root/client.cjs box/echo an/fake-claude', 480);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const report = JSON.parse(run.stdout);
      expect(report.node).toMatch(/^v\d+\./);
      console.log(`in-box client on node ${report.node}`);
      for (const [model, after] of [
        ['box/echo', (r: string) => r],
        ['an/fake-claude', (r: string) => `result: ${r}`],
      ] as const) {
        const { responses, chat, messages } = report[model];
        expect(responses, model).toMatchObject({ name: 'get_weather', status: 'completed', answer: after(weather('Paris')) });
        expect(JSON.parse(responses.arguments)).toEqual({ city: 'Paris' });
        expect(responses.argDeltas.join('')).toBe(responses.arguments);
        expect(responses.textDeltas.length).toBeGreaterThan(1);
        expect(responses.textDeltas.join('')).toBe(responses.answer);

        expect(chat, model).toMatchObject({ finish1: 'tool_calls', name: 'get_weather', finish2: 'stop', answer: after(weather('Rome')) });
        expect(JSON.parse(chat.arguments)).toEqual({ city: 'Rome' });
        expect(chat.parts.join('')).toBe(chat.answer);
        expect(chat.usage.completion_tokens).toBeGreaterThan(0);

        expect(messages, model).toMatchObject({ stop1: 'tool_use', name: 'get_weather', input: { city: 'Oslo' }, stop2: 'end_turn' });
        expect(messages.answer).toEqual([{ type: 'text', text: after(weather('Oslo')) }]);
        expect(messages.texts.join('')).toBe(after(weather('Oslo')));

        // A library that threw reports its stack here.
        for (const lib of ['vercelAi', 'langchain', 'openaiAgents']) expect(report[model][lib].error, `${model} ${lib}`).toBeUndefined();
        // Vercel AI SDK: each provider calls the tool in step 1 and answers with its result in step 2.
        for (const provider of ['responses', 'chat', 'anthropic']) {
          const { generate, stream, executed } = report[model].vercelAi[provider];
          const label = `${model} ai-sdk ${provider}`;
          expect(generate, label).toMatchObject({ steps: 2, toolCall: { name: 'get_weather', input: { city: 'Kyiv' } }, toolResult: weather('Kyiv') });
          expect(generate.text, label).toBe(after(weather('Kyiv')));
          expect(generate.usage.outputTokens, label).toBeGreaterThan(0);
          expect(stream, label).toMatchObject({ steps: 2, toolCall: { name: 'get_weather', input: { city: 'Bern' } }, text: after(weather('Bern')) });
          expect(stream.parts, label).toBeGreaterThan(1);
          expect(executed, label).toEqual([{ city: 'Kyiv' }, { city: 'Bern' }]);
        }
        // LangChain: bindTools returns the tool call; the tool's result comes back in the answer.
        for (const llm of ['ChatOpenAI', 'ChatOpenAI/responses', 'ChatAnthropic']) {
          const lc = report[model].langchain[llm];
          expect(lc.toolCall, `${model} ${llm}`).toEqual({ name: 'get_weather', args: { city: 'Lima' } });
          expect(lc.text, `${model} ${llm}`).toContain(after(weather('Lima')));
        }
        // OpenAI Agents SDK: the agent ran the function tool once and finished with its result.
        for (const api of ['responses', 'chat_completions']) {
          const ag = report[model].openaiAgents[api];
          expect(ag, `${model} agents ${api}`).toEqual({ finalOutput: after(weather('Quito')), executed: [{ city: 'Quito' }] });
        }
      }

      // The requests were the box's: its usage shows every one the libraries made. Per model:
      // 3 styles x 2 turns, AI SDK 3 providers x (generate + stream) x 2 steps, LangChain
      // 3 models x 2 turns, Agents 2 APIs x 2 turns = 28; two models.
      expect(report.requests).toBe(56);
      const usage = await (await svc.api('/v1/usage/tokens')).json();
      const mine = usage.boxes.find((b: { box_id: string }) => b.box_id === boxId);
      expect(mine).toMatchObject({ requests: report.requests });
      expect(mine.input_tokens).toBeGreaterThan(0);
      expect(mine.output_tokens).toBeGreaterThan(0);
    },
    VM_TIMEOUT,
  );
});
