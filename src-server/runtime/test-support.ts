/**
 * Shared set-up of the real-VM tests: one guest image for every test file (BOX_IMAGE_CACHE,
 * defaulting to a fixed directory under the OS temp dir), a fresh data dir per file, and
 * a machine shape small enough for CI.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_BUILD_PATH, ensureGuestImage, type GuestImage } from './guest-image.js';
import { hostTscKhz } from './host.js';
import { buildAgentSync } from './agent-build.js';
import type { Accel, VmConfig } from './vm-config.js';

export function testImageCache(): string {
  process.env.BOX_IMAGE_CACHE ??= join(tmpdir(), 'box-image-cache');
  return process.env.BOX_IMAGE_CACHE;
}

/** Short path: unix socket paths must stay under 108 bytes. */
export function testDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'boxrt-'));
}

export async function testImage(dataDir: string): Promise<GuestImage> {
  testImageCache();
  if (!existsSync(AGENT_BUILD_PATH)) buildAgentSync();
  return ensureGuestImage({ dataDir });
}

export function testConfig(image: GuestImage, over: Partial<VmConfig> = {}, accel: Accel = 'tcg'): VmConfig {
  return {
    kernel: image.kernel,
    initrd: image.initrd,
    rootfs: image.rootfs,
    memoryMib: 256,
    vcpus: 1,
    diskGib: 3,
    accel,
    tscKhz: hostTscKhz(),
    ...over,
  };
}
