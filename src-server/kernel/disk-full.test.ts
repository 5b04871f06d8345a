import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeRuntime } from '../test-support/fake-runtime.js';
import { errorOf, startTestService, type TestService } from '../test-support/harness.js';

/**
 * Issue 28, disk full, on a real full disk (a 48 MiB tmpfs; mounting one needs root, as on
 * the project machines and CI): writes get a clear 507 naming the disk and what to free,
 * deletes still work at 0 bytes free, and GET /v1/status warns while the disk runs low.
 */
const mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'box-diskfull-'));
let mounted = false;
let svc: TestService;
const logs: string[] = [];
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mnt], { stdio: 'ignore' });
  mounted = true;
} catch {
  /* not root: the test below says so */
}

beforeAll(async () => {
  if (!mounted) return;
  const log = { info: (m: unknown) => logs.push(String(m)), warn: (m: unknown) => logs.push(String(m)), error: (m: unknown) => logs.push(String(m)) };
  svc = await startTestService({ dataDir: path.join(mnt, 'data'), runtime: (d) => new FakeRuntime(d), log, diskLowBytes: 16 * 1024 * 1024 });
});
afterAll(async () => {
  await svc?.close();
  if (mounted) execFileSync('umount', ['-l', mnt]);
  fs.rmSync(mnt, { recursive: true, force: true });
});

/** Fills the disk to its last byte with a file outside the service's reach. */
function fill() {
  const fd = fs.openSync(path.join(mnt, 'filler'), 'w');
  const chunk = Buffer.alloc(1024 * 1024, 1);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  }
  try {
    for (;;) fs.writeSync(fd, Buffer.alloc(4096, 1));
  } catch {
    /* full to the block */
  } finally {
    fs.closeSync(fd);
  }
}

it.runIf(process.platform === 'linux')('a full disk: 507 naming the disk for writes, deletes still work, a low-disk warning in the status', async () => {
  expect(mounted, 'mounting a tmpfs needs root').toBe(true);
  const status0 = await (await svc.api('/v1/status')).json();
  expect(status0.disk).toMatchObject({ low: false, total_bytes: 48 * 1024 * 1024 });
  expect(status0.data_dir).toBe(path.join(mnt, 'data'));
  const vols: string[] = [];
  for (const name of ['a', 'b', 'c']) vols.push((await (await svc.api('/v1/box-volumes', { method: 'POST', json: { name } })).json()).volume_id);
  expect((await svc.api(`/v1/box-volumes/${vols[0]}/files?path=x.bin`, { method: 'PUT', body: Buffer.alloc(64 * 1024, 7) })).status).toBeLessThan(300);

  fill();
  expect(fs.statfsSync(mnt).bavail).toBe(0);
  const status = await (await svc.api('/v1/status')).json();
  expect(status.disk.low).toBe(true);
  expect(status.disk.warning).toContain("The disk of the service's data dir is almost full: 0 MiB free");

  // writes: a file, a database row
  const put = await svc.api(`/v1/box-volumes/${vols[1]}/files?path=y.bin`, { method: 'PUT', body: Buffer.alloc(256 * 1024, 7) });
  expect(put.status).toBe(507);
  const err = await errorOf(put);
  expect(err.code).toBe('insufficient_storage');
  expect(err.message).toContain("No space left on the disk of the service's data dir");
  const create = await svc.api('/v1/box-volumes', { method: 'POST', json: { name: 'd' } });
  expect([201, 200, 507]).toContain(create.status); // the reserve is free now: a small row may fit

  // deletes at (almost) 0 bytes free
  for (const v of vols) expect((await svc.api(`/v1/box-volumes/${v}`, { method: 'DELETE' })).status).toBeLessThan(300);
  expect((await (await svc.api('/v1/box-volumes')).json()).data.map((v: { name: string }) => v.name)).not.toContain('a');
  expect(logs.join('\n')).toMatch(/disk low: .* free of 48 MiB/);
  fs.rmSync(path.join(mnt, 'filler'));
});
