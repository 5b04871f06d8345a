import { afterAll, beforeAll, expect, it } from 'vitest';
import { echoEmbedding } from '../src-server/areas/inference/engines/echo/echo-embedding.js';
import { startTestService, type TestService } from '../src-server/test-support/harness.js';
import { runCli } from './test-support/cli.js';

// `box embed` (issue 34): the vector of a text as JSON; --dimensions; errors are the envelope's.
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({});
});
afterAll(() => svc?.close());

it('prints the embedding of the text, shortened with --dimensions; refuses a missing or unknown model', async () => {
  const env = { BOX_URL: svc.url, BOX_API_KEY: svc.key };
  const r = await runCli(env, ['embed', 'hello', 'world', '--model', 'box/echo']);
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual(echoEmbedding('hello world'));
  const short = await runCli(env, ['embed', 'hello', '--model', 'box/echo', '--dimensions', '4']);
  expect(JSON.parse(short.stdout)).toEqual(echoEmbedding('hello', 4));
  const full = await runCli(env, ['--json', 'embed', 'hello', '--model', 'box/echo']);
  expect(JSON.parse(full.stdout)).toMatchObject({ object: 'list', model: 'box/echo', usage: { prompt_tokens: 1 } });
  const none = await runCli(env, ['embed', 'hello']);
  expect(none.code).toBe(2);
  expect(none.stderr).toMatch(/--model is required/);
  const bad = await runCli(env, ['embed', 'x', '--model', 'box/nope']);
  expect(bad.code).toBe(4);
  expect(bad.stderr).toMatch(/box\/nope/);
});
