/**
 * Issue 28, stops: a stop signal to the whole process group (a terminal's Ctrl+C, systemd,
 * `docker stop`) is one stop, and a SIGTERM to a launcher's pid stops the service behind it
 * the same way. Real VMs (QEMU; TCG here): every box asleep, exit 0, no QEMU of this data dir
 * left. The 40-box case runs in scripts/crash-suite.ts (`npm run bench:crash`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { testImageCache } from '../runtime/test-support/vm-image.js';
import { killUnder, processesUnder, signalGroup, spawnService, type Launcher, type Spawned } from '../../test-support/spawned-service.js';

const VM_TIMEOUT = 600_000;
const dirs: string[] = [];
const groups: number[] = [];
afterAll(() => {
  for (const g of groups) {
    try {
      process.kill(-g, 'SIGKILL'); // a launcher or service a failed test left behind
    } catch {
      /* the group is gone */
    }
  }
  for (const d of dirs) {
    killUnder(d);
    fs.rmSync(d, { recursive: true, force: true });
  }
});

async function post(s: Spawned, p: string, json: unknown = {}) {
  const res = await s.api(p, { method: 'POST', json });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** A service started by `launcher` with `n` running boxes. */
async function serviceWithBoxes(launcher: Launcher, n: number) {
  testImageCache();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bxstop-'));
  dirs.push(dataDir);
  const s = await spawnService({ launcher, dataDir, env: { BOX_IMAGE_CACHE: process.env.BOX_IMAGE_CACHE! } });
  groups.push(s.child.pid!);
  const app = (await post(s, '/v1/apps/find', { name: 'stop', mint_if_missing: true })).id;
  const boxes = await Promise.all(Array.from({ length: n }, (_, i) => post(s, '/v1/boxes', { app_id: app, name: `s${i}` })));
  for (const b of boxes) expect(b.status).toBe('running');
  expect(processesUnder(dataDir).length).toBeGreaterThanOrEqual(n);
  return { s, dataDir };
}

function statuses(dataDir: string): string[] {
  const db = new Database(path.join(dataDir, 'box.db'), { readonly: true });
  try {
    return (db.prepare(`SELECT status FROM boxes`).all() as { status: string }[]).map((r) => r.status);
  } finally {
    db.close();
  }
}

async function expectStoppedCleanly(s: Spawned, dataDir: string, n: number) {
  const exit = await s.exited;
  expect({ exit, out: s.output() }).toMatchObject({ exit: { code: 0, signal: null } });
  expect(s.output()).toContain(`${n} box${n === 1 ? '' : 'es'} asleep.`);
  expect(s.output()).not.toContain('again: leaving');
  expect(s.output()).toContain('Box service stopped.');
  expect(statuses(dataDir)).toEqual(Array(n).fill('sleeping'));
  // QEMUs exit on their own after the save; give the last ones a moment
  const deadline = Date.now() + 10_000;
  while (processesUnder(dataDir).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  expect(processesUnder(dataDir)).toEqual([]);
}

describe('stopping the service', () => {
  it(
    'a process-group SIGTERM to `npm run serve` is one stop: every box asleep, exit 0, no QEMU left',
    async () => {
      const { s, dataDir } = await serviceWithBoxes('npm run serve', 3);
      signalGroup(s, 'SIGTERM');
      await expectStoppedCleanly(s, dataDir, 3);
      expect(s.output()).toContain('SIGTERM: Quitting puts the 3 running boxes to sleep first');
    },
    VM_TIMEOUT,
  );

  it(
    'a SIGTERM to the pid of `npm start` stops the service behind it the same way',
    async () => {
      const { s, dataDir } = await serviceWithBoxes('npm start', 1);
      s.child.kill('SIGTERM');
      await expectStoppedCleanly(s, dataDir, 1);
    },
    VM_TIMEOUT,
  );

  it(
    'a process-group SIGINT to `npm start` (Ctrl+C in its terminal) is one stop too',
    async () => {
      const { s, dataDir } = await serviceWithBoxes('npm start', 1);
      signalGroup(s, 'SIGINT');
      await expectStoppedCleanly(s, dataDir, 1);
    },
    VM_TIMEOUT,
  );
});
