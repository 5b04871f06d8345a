import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishEndpoint } from '../src-server/endpoint-file.js';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { startTestService, type TestService } from '../src-server/test-support/harness.js';
import { runCli } from './test-support/cli.js';

// The newcomer's first hour (issue 15) through the real CLI against the real service.
let svc: TestService;
let env: { BOX_URL: string; BOX_API_KEY: string };
const box = (args: string[], o?: Parameters<typeof runCli>[2]) => runCli(env, args, o);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'box-newcomer-'));

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  env = { BOX_URL: svc.url, BOX_API_KEY: svc.key };
});
afterAll(async () => {
  await svc?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('finding the service', () => {
  it('finds a service on another port and data dir through the endpoint file, without BOX_URL', async () => {
    const home = fs.mkdtempSync(path.join(tmp, 'home-'));
    const dataDir = fs.mkdtempSync(path.join(tmp, 'data-'));
    fs.writeFileSync(path.join(dataDir, 'api-key'), `${svc.key}\n`);
    const unpublish = publishEndpoint({ url: svc.url, inference_url: svc.inferenceUrl, data_dir: dataDir }, { HOME: home });
    try {
      // The pointer in the default data dir (HOME/.box-desktop) is enough: no BOX_* at all.
      const r = await runCli({ HOME: home, BOX_DATA_DIR: undefined }, ['whoami']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(svc.url);
      // and BOX_DATA_DIR=<the service's data dir> finds it too
      const d = await runCli({ BOX_DATA_DIR: dataDir }, ['whoami', '--json']);
      expect(d.code, d.stderr).toBe(0);
    } finally {
      unpublish();
    }
    expect(fs.existsSync(path.join(dataDir, 'endpoint.json'))).toBe(false);
    expect(fs.existsSync(path.join(home, '.box-desktop', 'endpoint.json'))).toBe(false);
  });

  it('ignores a stale endpoint file left by a dead process and says where the URL came from', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'stale-'));
    fs.writeFileSync(path.join(dir, 'endpoint.json'), JSON.stringify({ url: svc.url, data_dir: dir, pid: 2 ** 22 + 7, started_at: '' }));
    fs.writeFileSync(path.join(dir, 'api-key'), `${svc.key}\n`);
    const r = await runCli({ BOX_DATA_DIR: dir }, ['whoami']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot reach the box service at http://127.0.0.1:8787');
    expect(r.stderr).toContain('BOX_URL');
  });
});

describe('signing in again', () => {
  it('box login-link prints a single-use link that signs a browser in; a reused one lands on the sign-in page', async () => {
    const r = await box(['login-link']);
    expect(r.code, r.stderr).toBe(0);
    const url = r.stdout.trim();
    expect(url).toMatch(new RegExp(`^${svc.url}/ui/login\\?token=\\S+$`));
    expect(r.stderr).toContain('10 minutes');
    const first = await fetch(url, { redirect: 'manual' });
    expect(first.status).toBe(302);
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/box_session=.*HttpOnly/i);
    const who = await fetch(`${svc.url}/v1/whoami`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(who.status).toBe(200);
    // No web UI in this test service: a reused link says what to do, in words.
    const again = await fetch(url, { redirect: 'manual' });
    expect(again.status).toBe(401);
    expect(await again.text()).toContain('npx box login-link');
  });

  it('POST /ui/session signs in with a pasted key and refuses a wrong one naming api_key', async () => {
    const ok = await fetch(`${svc.url}/ui/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: ` ${svc.key} ` }),
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('set-cookie')).toMatch(/box_session=/);
    const bad = await fetch(`${svc.url}/ui/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: 'bxk_nope' }),
    });
    expect(bad.status).toBe(401);
    expect((await bad.json()).error).toMatchObject({ param: 'api_key', code: 'invalid_api_key' });
    const empty = await fetch(`${svc.url}/ui/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(empty.status).toBe(400);
    expect((await empty.json()).error.param).toBe('api_key');
  });
});

describe('CLI details', () => {
  it('box cron add --help prints the usage of cron add, not the group summary', async () => {
    const r = await box(['cron', 'add', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: box cron add <box>/);
    expect(r.stdout).not.toContain('box cron list');
  });

  it('cron list names the box', async () => {
    expect((await box(['boxes', 'create', 'cronbox', '--app', 'nc'])).code).toBe(0);
    const add = await box(['cron', 'add', 'cronbox', '*/5 * * * *', '--', 'echo', 'hi']);
    expect(add.code, add.stderr).toBe(0);
    const r = await box(['cron', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/\bBOX\b/);
    expect(r.stdout).toMatch(/cronbox\s+\*\/5 \* \* \* \*/);
  });

  it('volumes put infers the destination from the file name, as cp does', async () => {
    expect((await box(['volumes', 'create', 'ncvol'])).code).toBe(0);
    const file = path.join(tmp, 'notes.txt');
    fs.writeFileSync(file, 'hello volume\n');
    const put = await box(['volumes', 'put', 'ncvol', file]);
    expect(put.code, put.stderr).toBe(0);
    const back = await box(['volumes', 'fetch', 'ncvol', 'notes.txt', '-']);
    expect(back.stdout).toBe('hello volume\n');
    const stdin = await box(['volumes', 'put', 'ncvol', '-'], { input: 'x' });
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toContain('needs a destination');
  });
});

describe('volume file operations', () => {
  it('mkdir, mv, rm-path (recursive) through the CLI; ls hides unfinished uploads', async () => {
    expect((await box(['volumes', 'create', 'ops'])).code).toBe(0);
    const id = JSON.parse((await box(['volumes', 'get', 'ops', '--json'])).stdout).volume_id as string;
    const data = path.join(svc.dataDir, 'volumes', id, 'data');
    expect((await box(['volumes', 'mkdir', 'ops', 'a/b'])).code).toBe(0);
    expect(fs.statSync(path.join(data, 'a/b')).isDirectory()).toBe(true);
    const again = await box(['volumes', 'mkdir', 'ops', 'a/b']);
    expect(again.code).toBe(5);
    fs.writeFileSync(path.join(data, 'a/b/f.txt'), 'x');
    fs.writeFileSync(path.join(data, '.box-upload-0000'), 'partial');
    const ls = await box(['volumes', 'ls', 'ops']);
    expect(ls.stdout).not.toContain('.box-upload-');
    expect((await box(['volumes', 'ls', 'ops', '--all'])).stdout).toContain('.box-upload-0000');
    const mv = await box(['volumes', 'mv', 'ops', 'a', 'renamed']);
    expect(mv.code, mv.stderr).toBe(0);
    expect(fs.readFileSync(path.join(data, 'renamed/b/f.txt'), 'utf8')).toBe('x');
    expect((await box(['volumes', 'mv', 'ops', 'renamed', 'renamed/inside'])).code).toBe(2);
    const notEmpty = await box(['volumes', 'rm-path', 'ops', 'renamed']);
    expect(notEmpty.code).toBe(5);
    expect(notEmpty.stderr).toContain('not empty');
    expect((await box(['volumes', 'rm-path', 'ops', 'renamed', '--recursive'])).code).toBe(0);
    expect(fs.existsSync(path.join(data, 'renamed'))).toBe(false);
    expect((await box(['volumes', 'rm-path', 'ops', '../x'])).code).toBe(2);
  }, 240_000);

  it('deleting a link removes the link, never what it points to outside the volume', async () => {
    expect((await box(['volumes', 'create', 'links'])).code).toBe(0);
    const id = JSON.parse((await box(['volumes', 'get', 'links', '--json'])).stdout).volume_id as string;
    const data = path.join(svc.dataDir, 'volumes', id, 'data');
    const outside = fs.mkdtempSync(path.join(tmp, 'outside-'));
    fs.writeFileSync(path.join(outside, 'keep.txt'), 'keep');
    fs.symlinkSync(outside, path.join(data, 'escape'));
    fs.mkdirSync(path.join(data, 'dir'));
    fs.symlinkSync(outside, path.join(data, 'dir', 'inner-link'));
    expect((await box(['volumes', 'rm-path', 'links', 'escape/keep.txt'])).code).toBe(4);
    expect((await box(['volumes', 'rm-path', 'links', 'dir', '-r'])).code).toBe(0);
    expect((await box(['volumes', 'rm-path', 'links', 'escape'])).code).toBe(0);
    expect(fs.readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe('keep');
    expect(fs.readdirSync(data)).toEqual([]);
  }, 120_000);
});
