/**
 * Hosted tools (issue 34) in real boxes (QEMU; TCG here), through the official `openai`
 * client and `box/echo`: code_interpreter with `container: auto` runs Python in a box the
 * gateway makes; the conversation's shell call runs in the same box. Timings are printed
 * (the first hosted call on a new box, against a plain create + exec).
 */
import fs from 'node:fs';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponsesStreamEvent } from '@box/contract/inference-stream';
import { startTestService, templatesReady, terminateBoxes, type TestService } from '../../test-support/harness.js';

const VM_TIMEOUT = 900_000;
let svc: TestService;
let openai: OpenAI;

beforeAll(async () => {
  process.env.BOX_CODE_WARM = '1'; // the default template's warm kernel, as the product ships (vitest.config.ts turns it off)
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxhosted-'), tuning: { prepareTemplates: true } });
  await templatesReady(svc);
  openai = new OpenAI({ apiKey: svc.key, baseURL: `${svc.url}/v1`, timeout: VM_TIMEOUT, maxRetries: 0 });
}, VM_TIMEOUT);
afterAll(async () => {
  if (svc) await terminateBoxes(svc);
  await svc?.close();
}, VM_TIMEOUT);

const CODE = { type: 'code_interpreter', container: { type: 'auto' } } as const;
const SHELL = { type: 'shell', environment: { type: 'container_auto' } } as const;

describe('hosted tools in a real box', () => {
  it(
    'code_interpreter runs print(6*7) in a new box; shell then runs uname -s in the same box; streamed the same',
    async () => {
      // baseline: a box and one command through the API
      const app = await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'base', mint_if_missing: true } })).json();
      let t0 = performance.now();
      const base = await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name: 'base' } })).json();
      const ran = await (await svc.api(`/v1/boxes/${base.box_id}/exec`, { method: 'POST', json: { command: 'uname -s' } })).text();
      const baseMs = performance.now() - t0;
      const stdout = ran
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; data?: string })
        .filter((e) => e.type === 'stdout')
        .map((e) => Buffer.from(e.data!, 'base64').toString())
        .join('');
      expect(stdout).toBe('Linux\n');

      t0 = performance.now();
      const r = await openai.responses.create({ model: 'box/echo', input: 'print(6*7)', tools: [CODE] });
      const firstMs = performance.now() - t0;
      expect(r.status).toBe('completed');
      expect(r.output.map((o) => o.type)).toEqual(['code_interpreter_call', 'message']);
      const call = r.output[0];
      if (call?.type !== 'code_interpreter_call') throw new Error('not a code_interpreter_call');
      expect(call).toMatchObject({ status: 'completed', code: 'print(6*7)', outputs: [{ type: 'logs', logs: '42' }] });
      expect(r.output_text).toContain('42');
      const box = await (await svc.api(`/v1/boxes/${call.container_id}`)).json();
      expect(box).toMatchObject({ status: 'running', name: `resp-${r.id.slice(5)}` });

      t0 = performance.now();
      const again = await openai.responses.create({ model: 'box/echo', input: 'print(6*7*2)', tools: [CODE], previous_response_id: r.id });
      const warmMs = performance.now() - t0;
      expect(again.output[0]).toMatchObject({ type: 'code_interpreter_call', container_id: call.container_id });
      expect(again.output_text).toContain('84');

      const sh = await openai.responses.create({ model: 'box/echo', input: 'uname -s', tools: [SHELL], previous_response_id: again.id });
      expect(sh.output[0]).toMatchObject({ type: 'shell_call', environment: { type: 'container_reference', container_id: call.container_id } });
      expect(sh.output[1]).toMatchObject({ type: 'shell_call_output', output: [{ stdout: 'Linux\n', outcome: { type: 'exit', exit_code: 0 } }] });
      expect(sh.output_text).toContain('Linux');

      const events: { type: string }[] = [];
      const stream = await openai.responses.create({ model: 'box/echo', input: 'print(6*7)', tools: [CODE], previous_response_id: sh.id, stream: true });
      for await (const e of stream) events.push(e);
      for (const e of events) expect(ResponsesStreamEvent.safeParse(e).error?.issues ?? [], JSON.stringify(e)).toEqual([]);
      expect(events.map((e) => e.type).filter((t) => t.startsWith('response.code_interpreter_call'))).toEqual([
        'response.code_interpreter_call.in_progress',
        'response.code_interpreter_call_code.delta',
        'response.code_interpreter_call_code.done',
        'response.code_interpreter_call.interpreting',
        'response.code_interpreter_call.completed',
      ]);
      const done = events.at(-1) as unknown as { response: OpenAI.Responses.Response };
      expect(done.response.output).toEqual((await openai.responses.retrieve(done.response.id)).output);
      console.log(
        `hosted tools timings (ms): create + exec ${Math.round(baseMs)}; first code_interpreter call on a new auto box ${Math.round(firstMs)}; next call in the same box ${Math.round(warmMs)}`,
      );
    },
    VM_TIMEOUT,
  );
});
