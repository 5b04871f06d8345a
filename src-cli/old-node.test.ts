import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { startTestService, type TestService } from '../src-server/test-support/harness.js';

// The CLI on the oldest Node package.json's engines allows (the README: "the box CLI runs
// on the Node you have", e.g. after `npm link`). npm scripts run the project's Node 22; an
// API that only Node 22 has, imported by name, breaks the CLI on older ones at load time.
// Runs with the first `node` on PATH outside node_modules that is older than 22 (Debian's
// on the project machines), and is skipped where there is none.
const ROOT = path.resolve(import.meta.dirname, '..');
const olderNode = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((d) => d && !d.includes('node_modules'))
  .map((d) => path.join(d, 'node'))
  .find((p) => {
    if (!fs.existsSync(p)) return false;
    const v = execFileSync(p, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    return Number(v.split('.')[0]) < 22;
  });

let svc: TestService;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'box-old-node-'));
beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
});
afterAll(async () => {
  await svc?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

it.skipIf(!olderNode)(
  `runs on ${olderNode ?? 'an older Node (none on PATH)'}: API commands and the local image commands`,
  async () => {
    const env = { ...process.env, BOX_URL: svc.url, BOX_API_KEY: svc.key, BOX_DATA_DIR: tmp, BOX_IMAGE_CACHE: '' }; // the cache under tmp, not npm test's shared one
    // asynchronous: the service answering it runs in this process
    const box = (...args: string[]) =>
      new Promise<{ status: number; stdout: string; stderr: string }>((resolve) =>
        execFile(olderNode!, [path.join(ROOT, 'bin/box.mjs'), ...args], { env, encoding: 'utf8', timeout: 60_000 }, (e, stdout, stderr) =>
          resolve({ status: e ? Number(e.code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const who = await box('whoami', '--json');
    expect(who.stderr).toBe('');
    expect(JSON.parse(who.stdout)).toEqual(await (await svc.api('/v1/whoami')).json());
    // `box image` loads the image builder on this machine (not an API call)
    const cache = await box('image', 'cache', '--data-dir', tmp);
    expect(cache.stderr).toBe('');
    expect(cache.status).toBe(0);
    expect(cache.stdout).toContain(`cache: ${path.join(tmp, 'images', 'debian')}`);
  },
  120_000,
);

// The service is not the CLI: its native modules are built for the project's Node 22, on
// which npm scripts run it. Started by hand on an older Node, it says so instead of crashing.
it.skipIf(!olderNode)(`the service started on ${olderNode ?? 'an older Node'} says which Node it needs and how to start it`, async () => {
  const r = await new Promise<{ status: number; stderr: string }>((resolve) =>
    execFile(
      olderNode!,
      ['--import', 'tsx', path.join(ROOT, 'src-server/headless.ts'), '--port', '0', '--data-dir', tmp],
      { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
      (e, _o, stderr) => resolve({ status: e ? Number(e.code ?? 1) : 0, stderr }),
    ),
  );
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/The Box service needs Node 22 or later, the project's own; this is Node (1\d|2[01])\./);
  expect(r.stderr).toContain('Start it with `npm start` or `npm run serve`');
  expect(fs.existsSync(path.join(tmp, 'service.lock'))).toBe(false); // it stopped before touching the data dir
});
