import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { groupAlive, killGroups } from '../test-support/process-groups.js';
import { afterAll, afterEach, expect, it } from 'vitest';

// The headless service on an empty image cache starts building the guest image. Stopped
// or killed during that build, it leaves nothing of the build running to write into the
// cache (recipe-group.ts): a SIGTERM stops the service and its build; after a kill -9 the
// next start kills the orphaned build before it builds that part again.
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'box-image-build-stop-'));
const cache = path.join(tmp, 'cache');
const key = 'bxk_image_build_stop_test_00000000000000';
const started: ChildProcess[] = [];
const groups: number[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});
afterAll(() => {
  killGroups(groups);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function startService(dataDir: string) {
  const child = spawn(process.execPath, ['src-server/headless.ts', '--port', '0', '--data-dir', dataDir, '--web-ui', path.join(dataDir, 'no-ui')], {
    cwd: ROOT,
    env: { ...process.env, BOX_API_KEY: key, BOX_TEMPLATES: '0', BOX_IMAGE_CACHE: cache, HOME: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  return { child, output: () => out };
}

/** The build group the service recorded for the part it is building (waits for one). */
async function buildGroup(not?: number): Promise<{ pgid: number; file: string }> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const parts = path.join(cache, 'images', 'debian', 'parts');
    const file = fs.existsSync(parts) ? fs.readdirSync(parts).find((f) => f.endsWith('.group')) : undefined;
    if (file) {
      try {
        const { pgid } = JSON.parse(fs.readFileSync(path.join(parts, file), 'utf8')) as { pgid: number };
        if (pgid !== not) {
          groups.push(pgid);
          return { pgid, file: path.join(parts, file) };
        }
      } catch {
        // being written
      }
    }
    await sleep(100);
  }
  throw new Error(`no guest image build started within 120 s (the image cache ${cache})`);
}

const exitCode = (c: ChildProcess) => new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.once('exit', (code) => r(code))));

it('a SIGTERM during the guest image build stops the service and the build with it', async () => {
  const dataDir = fs.mkdtempSync(path.join(tmp, 'term-'));
  const svc = startService(dataDir);
  const { pgid } = await buildGroup();
  await sleep(1000); // debootstrap and its children are under way
  expect(groupAlive(pgid)).toBe(true);
  svc.child.kill('SIGTERM');
  expect(await exitCode(svc.child), svc.output()).toBe(0);
  await sleep(200);
  expect(groupAlive(pgid), `build group ${pgid} still running after the service stopped`).toBe(false);
}, 180_000);

it('after a kill -9 during the build, the next start ends the orphaned build and builds again', async () => {
  const dataDir = fs.mkdtempSync(path.join(tmp, 'kill-'));
  const first = startService(dataDir);
  const old = await buildGroup();
  // Held stopped, so it cannot end by itself: a build orphaned in a phase that writes to the
  // dead service's pipe dies of SIGPIPE, one in a silent phase (debootstrap unpacking, apt,
  // mke2fs) goes on writing for minutes.
  process.kill(-old.pgid, 'SIGSTOP');
  first.child.kill('SIGKILL');
  await exitCode(first.child);
  await sleep(500);
  expect(groupAlive(old.pgid)).toBe(true); // what a crash leaves: the build, orphaned
  const second = startService(dataDir);
  const deadline = Date.now() + 120_000;
  while (groupAlive(old.pgid) && Date.now() < deadline) await sleep(100);
  expect(groupAlive(old.pgid), `orphaned build group ${old.pgid} still running after the restart`).toBe(false);
  const now = await buildGroup(old.pgid); // the new build's record replaces the old one
  expect(groupAlive(now.pgid)).toBe(true);
  second.child.kill('SIGTERM');
  expect(await exitCode(second.child), second.output()).toBe(0);
}, 300_000);
