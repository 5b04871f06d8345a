import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../src-server/test-support/harness.js';
import { runCli } from './test-support/cli.js';

// `box models`: list (with the guide when only the test model exists), catalog, pull with
// progress to completion from a loopback file server.
const file = Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(50_000, 1)]);
let svc: TestService;
let server: http.Server;

beforeAll(async () => {
  server = http.createServer((_req, res) => res.end(file));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tiny.gguf`;
  const sha256 = createHash('sha256').update(file).digest('hex');
  svc = await startTestService({
    tuning: {
      modelCatalog: [
        {
          id: 'tiny',
          name: 'tiny',
          description: 'test',
          parameters: '0',
          quantization: 'none',
          size_bytes: file.length,
          licence: 'MIT',
          source_url: url,
          sha256,
        },
      ],
    },
  });
});
afterAll(async () => {
  await svc?.close();
  await new Promise((r) => server.close(r));
});

it('box models: list guides, catalog lists, pull downloads with progress and verifies', async () => {
  const env = { BOX_URL: svc.url, BOX_API_KEY: svc.key };
  const list = await runCli(env, ['models']);
  expect(list.code).toBe(0);
  expect(list.stdout).toContain('box/echo');
  expect(list.stderr).toContain('box models pull');
  const cat = await runCli(env, ['models', 'catalog']);
  expect(cat.stdout).toMatch(/tiny\s+0\s+none/);
  const pull = await runCli(env, ['models', 'pull', 'tiny']);
  expect(pull.code).toBe(0);
  expect(pull.stdout).toContain(`local/tiny  ready  sha256 ${createHash('sha256').update(file).digest('hex')}`);
  expect(pull.stderr).toMatch(/tiny\s+\[#+\]\s+100%\s+completed/);
  const again = await runCli(env, ['models', 'pull', 'tiny']);
  expect(again.code).not.toBe(0);
  expect(again.stderr).toContain('already exists');
  expect((await runCli(env, ['models', 'list'])).stdout).toContain('local/tiny');
}, 120_000);
