/**
 * Issue 28, probe hygiene: the accelerator probe's QEMU dies with the process that started
 * it, kill -9 included, and its answer is cached once per machine, not per data dir.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { accelCacheFile, detectAccelerator } from './accel.js';
import { processesUnder } from '../../../test-support/spawned-service.js';
import { testDataDir, testImage } from '../test-support/vm-image.js';

const dataDir = testDataDir();
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it('kill -9 of the service in the middle of the probe leaves no QEMU behind', async () => {
  const image = await testImage(dataDir);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src-server/test-support/probe-child.ts', image.kernel, image.initrd], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const marker = `box-probe-${child.pid}`;
  try {
    const deadline = Date.now() + 60_000;
    while (processesUnder(marker, 'qemu').length === 0) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('the probe QEMU never started');
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
    const gone = Date.now() + 5000;
    while (processesUnder(marker, 'qemu').length && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
    expect(processesUnder(marker, 'qemu')).toEqual([]);
  } finally {
    child.kill('SIGKILL');
    for (const pid of processesUnder(marker, 'qemu')) process.kill(pid, 'SIGKILL');
  }
}, 120_000);

it('caches the answer once per machine: a second data dir reuses it', async () => {
  const image = await testImage(dataDir);
  const cache = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'box-accel-')), 'accel.json');
  process.env.BOX_ACCEL_CACHE = cache;
  try {
    expect(accelCacheFile()).toBe(cache);
    const first = await detectAccelerator({ dataDir, kernel: image.kernel, initrd: image.initrd });
    expect(first.reason).not.toContain('(cached)');
    const other = testDataDir();
    const second = await detectAccelerator({ dataDir: other, kernel: image.kernel, initrd: image.initrd });
    fs.rmSync(other, { recursive: true, force: true });
    expect(second).toEqual({ accel: first.accel, reason: `${first.reason} (cached)` });
    expect(fs.existsSync(path.join(dataDir, 'accel.json'))).toBe(false);
  } finally {
    delete process.env.BOX_ACCEL_CACHE;
    fs.rmSync(path.dirname(cache), { recursive: true, force: true });
  }
}, 120_000);
