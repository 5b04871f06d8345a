import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestService } from '../../test-support/harness.js';
import { startInferenceService } from './test-support/service.js';

// Discovery with an injected probe list: a fake OpenAI-compatible server on a free port
// plays "ollama"; a closed port plays an absent "vllm".
let svc: TestService;
let fake: http.Server;
let closedPort: number;

beforeAll(async () => {
  fake = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/v1/models')
      return void res.end(JSON.stringify({ object: 'list', data: [{ id: 'qwen2.5:0.5b', object: 'model', created: 1, owned_by: 'library' }] }));
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const q = JSON.parse(body);
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 1,
          model: q.model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: `ollama says ${q.model}` } }],
          usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
        }),
      );
    });
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  const probe = http.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  const probes = [
    { name: 'ollama', port: (fake.address() as AddressInfo).port, product: 'Ollama' },
    { name: 'vllm', port: closedPort, product: 'vLLM' },
  ];
  svc = await startInferenceService({ tuning: { engineDiscovery: { probes, everyMs: 3_600_000 } } });
});
afterAll(async () => {
  await svc?.close();
  fake.closeAllConnections();
  await new Promise((r) => fake.close(r));
});

it('a local server that answers is added with its models and answers requests', async () => {
  const engines = (await (await svc.api('/v1/engines/discovery/scan', { method: 'POST' })).json()).data;
  expect(engines.map((e: { name: string }) => e.name)).toEqual(['local', 'ollama', 'box']);
  expect(engines[1]).toMatchObject({ kind: 'openai', discovered: true, has_api_key: false });
  const models = (await (await svc.api('/v1/models')).json()).data.map((m: { id: string }) => m.id);
  expect(models).toEqual(['ollama/qwen2.5:0.5b', 'box/echo']);
  const r = await (await svc.api('/v1/responses', { method: 'POST', json: { model: 'ollama/qwen2.5:0.5b', input: 'hi' } })).json();
  expect(JSON.stringify(r.output)).toContain('ollama says qwen2.5:0.5b');
});

it('can be switched off and on in Settings, and a dismissed engine stays gone', async () => {
  const off = await (await svc.api('/v1/engines/discovery', { method: 'PUT', json: { enabled: false } })).json();
  expect(off).toMatchObject({ enabled: false, allowed: true });
  expect((await (await svc.api('/v1/engines')).json()).data.map((e: { name: string }) => e.name)).toEqual(['local', 'box']);
  await svc.api('/v1/engines/discovery', { method: 'PUT', json: { enabled: true } });
  expect((await (await svc.api('/v1/engines')).json()).data.map((e: { name: string }) => e.name)).toContain('ollama');
  const del = await svc.api('/v1/engines/ollama', { method: 'DELETE' });
  expect(del.status).toBe(200);
  await svc.api('/v1/engines/discovery/scan', { method: 'POST' });
  expect((await (await svc.api('/v1/engines')).json()).data.map((e: { name: string }) => e.name)).toEqual(['local', 'box']);
  expect((await svc.api('/v1/engines/vllm', { method: 'DELETE' })).status).toBe(404);
});
