import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { startTestService, type TestService } from '../src-server/test-support/harness.js';
import { runCli } from './test-support/cli.js';

// Issue 15 in the CLI: `box logs`, `box boxes console`, `box settings`, `box engines`.
let svc: TestService;
let rt: FakeRuntime;
let env: { BOX_URL: string; BOX_API_KEY: string };
let locked: http.Server;
let lockedUrl: string;

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => (rt = new FakeRuntime(d)) });
  env = { BOX_URL: svc.url, BOX_API_KEY: svc.key };
  locked = http.createServer((_q, s) => s.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"Invalid bearer token"}}'));
  await new Promise<void>((r) => locked.listen(0, '127.0.0.1', r));
  lockedUrl = `http://127.0.0.1:${(locked.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await svc?.close();
  await new Promise((r) => locked.close(r));
});

it('box logs: the service log with a level filter; -f follows it', async () => {
  svc.ctx.log.info('cli-test: info line');
  svc.ctx.log.warn('cli-test: warning line', { box_id: 'box_cli', reason: 'two words' });
  const all = await runCli(env, ['logs']);
  expect(all.code).toBe(0);
  expect(all.stdout).toMatch(/INFO {2}cli-test: info line\n/);
  // the fields after the text, as the service's terminal shows them
  expect(all.stdout).toMatch(/WARN {2}cli-test: warning line {2}box_id=box_cli reason="two words"\n/);
  expect(all.stderr).toContain('logs/service.log');
  const warn = await runCli(env, ['logs', '--level', 'warn']);
  expect(warn.stdout).toContain('cli-test: warning line');
  expect(warn.stdout).not.toContain('cli-test: info line');
  const bad = await runCli(env, ['logs', '--level', 'debug']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--level must be one of info, warn, error');
  const timer = setTimeout(() => svc.ctx.log.error('cli-test: live error'), 2500);
  const follow = await runCli(env, ['logs', '-f', '--level', 'error', '--seconds', '6']);
  clearTimeout(timer);
  expect(follow.code).toBe(0);
  expect(follow.stdout).toContain('ERROR cli-test: live error');
  expect(follow.stdout).not.toContain('cli-test: warning line');
}, 60_000);

it('box boxes console: the tail by name, -n lines, and -f', async () => {
  const app = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'cli', mint_if_missing: true } })).json()) as { id: string };
  const box = (await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name: 'serial' } })).json()) as { box_id: string };
  rt.writeConsole(box.box_id, 'one\ntwo\nthree\n');
  const all = await runCli(env, ['boxes', 'console', 'serial']);
  expect(all.code).toBe(0);
  expect(all.stdout).toBe('[fake] serial booted\nDebian GNU/Linux 12 serial ttyS0\none\ntwo\nthree\n');
  const two = await runCli(env, ['boxes', 'console', 'serial', '-n', '2']);
  expect(two.stdout).toBe('two\nthree\n');
  expect(two.stderr).toContain('of');
  const timer = setTimeout(() => rt.writeConsole(box.box_id, 'serial login: '), 4000);
  const follow = await runCli(env, ['boxes', 'console', box.box_id, '-f', '-n', '1', '--seconds', '8']);
  clearTimeout(timer);
  // Normally the tail, then the new piece; on a very slow start the piece is already in the tail.
  expect(follow.stdout).toMatch(/^(three\n)?serial login: $/);
  expect((await runCli(env, ['boxes', 'console', 'nobody'])).code).toBe(4);
}, 60_000);

it('box settings: on_quit read, set, and refused by name', async () => {
  const get = await runCli(env, ['settings']);
  expect(get.code).toBe(0);
  expect(get.stdout).toMatch(/on_quit:\s+ask/);
  expect(get.stdout).toContain('a headless service cannot ask');
  const set = await runCli(env, ['settings', 'set', 'on_quit', 'leave_running']);
  expect(set.stdout).toMatch(/on_quit:\s+leave_running/);
  expect((await svc.api('/v1/service/settings').then((r) => r.json())).on_quit).toBe('leave_running');
  const bad = await runCli(env, ['settings', 'set', 'on_quit', 'sometimes']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('on_quit must be one of ask, stop_boxes, leave_running');
}, 60_000);

it('box engines add: a 401 upstream is refused with the reason (exit 2); test and list show the error', async () => {
  const add = await runCli(env, ['engines', 'add', 'locked', lockedUrl, '--api-key', 'sk-nope']);
  expect(add.code).toBe(2);
  expect(add.stderr).toContain('refused the API key (401: Invalid bearer token)');
  expect((await runCli(env, ['engines', 'list'])).stdout).not.toContain('locked');
  const saved = await runCli(env, ['engines', 'add', 'locked', lockedUrl, '--api-key', 'sk-nope', '--no-verify']);
  expect(saved.code).toBe(0);
  expect(saved.stdout).toContain('saved untested');
  const test = await runCli(env, ['engines', 'test', 'locked']);
  expect(test.code).toBe(1);
  expect(test.stderr).toContain('locked: 127.0.0.1');
  expect(test.stderr).toContain('(upstream_unauthorized)');
  const list = await runCli(env, ['engines', 'list']);
  expect(list.stdout).toMatch(/locked\s+openai\s+http:\/\/127\.0\.0\.1:\d+\/v1\s+yes\s+127\.0\.0\.1:\d+ refused the API key/);
  expect((await runCli(env, ['engines', 'rm', 'locked'])).stdout).toContain('locked  removed');
}, 60_000);
