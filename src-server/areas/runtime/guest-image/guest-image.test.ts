import { execFileSync } from 'node:child_process';
import { accessSync, constants, readFileSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { detectAccelerator, probeBoot } from '../qemu/accel.js';
import { ensureGuestImage } from './guest-image.js';
import { testDataDir, testImage } from '../test-support/vm-image.js';

describe('guest image and accelerator', () => {
  const dataDir = testDataDir();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('builds once; a second ensureGuestImage is a cached no-op', async () => {
    const first = await testImage(dataDir);
    const t0 = performance.now();
    const second = await ensureGuestImage({ dataDir });
    const warmMs = performance.now() - t0;
    expect(second.cached).toBe(true);
    expect(second.recipeHash).toBe(first.recipeHash);
    expect(warmMs).toBeLessThan(2000);
    expect(readFileSync(second.kernel).subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    const fs = execFileSync('dumpe2fs', ['-h', second.rootfs], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
    expect(fs).toMatch(/Filesystem volume name:\s+boxroot/);
  }, 600_000);

  it('detects the accelerator with a real boot and caches the answer', async () => {
    const image = await testImage(dataDir);
    const result = await detectAccelerator({ dataDir, force: true });
    let kvmUsable: boolean;
    try {
      accessSync('/dev/kvm', constants.R_OK | constants.W_OK);
      kvmUsable = (await probeBoot('kvm', image.kernel, image.initrd, 15_000)).ok;
    } catch {
      kvmUsable = false;
    }
    expect(result.accel).toBe(kvmUsable ? 'kvm' : 'tcg');
    // TCG always boots the probe guest.
    expect((await probeBoot('tcg', image.kernel, image.initrd, 30_000)).ok).toBe(true);
    const cached = await detectAccelerator({ dataDir });
    expect(cached.accel).toBe(result.accel);
    expect(cached.reason).toContain('(cached)');
  }, 120_000);
});
