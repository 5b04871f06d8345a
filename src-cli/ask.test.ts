import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../src-server/test-support/harness.js';
import { runCli } from './test-support/cli.js';

// `box models ask` (issue 24): the answer streams in each style; errors are the envelope's.
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({});
});
afterAll(() => svc?.close());

it('prints the streamed answer in all three styles, and without streaming', async () => {
  const env = { BOX_URL: svc.url, BOX_API_KEY: svc.key };
  for (const style of ['responses', 'chat', 'messages']) {
    const r = await runCli(env, ['models', 'ask', 'box/echo', 'hello', 'there', '--style', style, '--system', 'be brief']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Echo: hello there\n');
  }
  const plain = await runCli(env, ['models', 'ask', 'box/echo', 'once', '--no-stream']);
  expect(plain.stdout).toBe('Echo: once\n');
  const bad = await runCli(env, ['models', 'ask', 'box/nope', 'x']);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toMatch(/box\/nope/);
});
