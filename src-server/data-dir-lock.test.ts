import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, expect, it } from 'vitest';
import { lockDataDir } from './data-dir-lock.js';
import { startService } from './service.js';
import { FakeRuntime } from './test-support/fake-runtime.js';

// One service per data dir: a second one (another `npm start`, the desktop app and a
// headless service on one BOX_DATA_DIR) is refused while the first lives, and takes over
// once it is gone, whatever way it went.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'box-dir-lock-'));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const startTime = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
};
const sleeper = () => {
  const c = spawn('sleep', ['60']);
  children.push(c);
  return c;
};
const exit = (c: ChildProcess) => new Promise((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', r)));

it('refuses a dir another live process holds; takes it over when that process is gone or its pid is reused', async () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'd-'));
  const other = sleeper();
  const lockFile = path.join(dir, 'service.lock');
  fs.writeFileSync(lockFile, JSON.stringify({ pid: other.pid, start: startTime(other.pid!), url: 'http://127.0.0.1:8787' }));
  expect(() => lockDataDir(dir)).toThrow(`Another Box service (pid ${other.pid}, http://127.0.0.1:8787) is already using the data dir ${dir}.`);
  // the same pid, started at another time: not that service any more
  fs.writeFileSync(lockFile, JSON.stringify({ pid: other.pid, start: '1' }));
  const a = lockDataDir(dir);
  expect(JSON.parse(fs.readFileSync(lockFile, 'utf8')).pid).toBe(process.pid);
  a.release();
  expect(fs.existsSync(lockFile)).toBe(false);
  // its holder killed (-9 leaves the file behind)
  fs.writeFileSync(lockFile, JSON.stringify({ pid: other.pid, start: startTime(other.pid!) }));
  other.kill('SIGKILL');
  await exit(other);
  const b = lockDataDir(dir);
  b.setUrl('http://127.0.0.1:1');
  expect(JSON.parse(fs.readFileSync(lockFile, 'utf8'))).toMatchObject({ pid: process.pid, url: 'http://127.0.0.1:1' });
  // this process again (a restart in place) is let through; an unreadable file is stale
  lockDataDir(dir).release();
  fs.writeFileSync(lockFile, '{"pid":');
  lockDataDir(dir).release();
});

it('a second service on the same dir is refused while the first runs, and starts once it stopped', async () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'svc-'));
  const key = 'bxk_dir_lock_test_00000000000000000000000';
  const first = spawn(process.execPath, ['src-server/headless.ts', '--port', '0', '--data-dir', dir, '--web-ui', path.join(dir, 'no-ui')], {
    cwd: ROOT,
    env: { ...process.env, BOX_API_KEY: key, BOX_TEMPLATES: '0', HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(first);
  let out = '';
  first.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  first.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const deadline = Date.now() + 60_000;
  while (!/listening on (http:\/\/\S+)/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
  const second = () => startService({ dataDir: dir, apiKey: key, runtime: (d) => new FakeRuntime(d), log: { info() {}, warn() {}, error() {} } });
  // Node on the entry, as `npm start` runs it: the service is the process spawned here (the
  // tsx CLI would relay a SIGTERM and SIGKILL the service if it answered slowly)
  await expect(second()).rejects.toThrow(
    `Another Box service (pid ${first.pid}, ${url}) is already using the data dir ${dir}. Stop it first, or give this one its own --data-dir (BOX_DATA_DIR).`,
  );
  expect((await fetch(`${url}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200); // the first goes on
  first.kill('SIGTERM');
  expect(await exit(first)).toBe(0);
  const svc = await second();
  expect((await fetch(`${svc.url}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
  await svc.close();
  expect(fs.existsSync(path.join(dir, 'service.lock'))).toBe(false);
}, 90_000);
