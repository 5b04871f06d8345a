/**
 * Shared set-up of the real-VM tests: one guest image for every test file (BOX_IMAGE_CACHE,
 * defaulting to a fixed directory under the OS temp dir), a fresh data dir per file, and
 * a machine shape small enough for CI.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentClient } from '../../../platform/guest/agent-client.js';
import { AGENT_BUILD_PATH, ensureGuestImage, type GuestImage } from '../guest-image/guest-image.js';
import { hostTscKhz } from '../qemu/host.js';
import { buildAgentSync } from '../guest-image/agent-build.js';
import { execText } from '../exec-text.js';
import type { Accel, VmConfig } from '../qemu/vm-config.js';

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

/** The runtime's own agent connection to a box (the port's GuestAgent has no text helper). */
export function agentOf(rt: unknown, boxId: string): AgentClient {
  return (rt as { conns: { client(id: string): AgentClient } }).conns.client(boxId);
}

/** A loopback port free at the time of the call. */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** What a published port answers (retried until something answers or 30 s pass). */
export async function readPublished(port: number): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const text = await new Promise<string>((resolve) => {
      const c = net.connect(port, '127.0.0.1');
      let buf = '';
      c.on('data', (d) => (buf += d));
      c.on('close', () => resolve(buf));
      c.on('error', () => resolve(''));
      c.setTimeout(3000, () => c.destroy());
    });
    if (text || Date.now() > deadline) return text;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Stands in for a box's egress proxy on loopback: answers `text` and closes. */
async function stubProxy(text: string): Promise<{ port: number; close(): void }> {
  const server = net.createServer((s) => s.end(text));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

/** `bash -c cmd` in a box through the runtime's agent connection: its stdout. */
export async function shIn(rt: unknown, boxId: string, cmd: string): Promise<string> {
  return (await execText(agentOf(rt, boxId), ['/bin/bash', '-c', cmd])).stdout;
}

/**
 * A real-VM test file's set-up: a fresh data dir (`prefix` + random) and a stub egress
 * proxy answering `proxyText`, both gone after the file's tests.
 */
export function vmTestFixture(prefix: string, proxyText: string): { dataDir: string; proxy: { port: number; close(): void } } {
  const fx = { dataDir: '', proxy: { port: 0, close: () => {} } };
  beforeAll(async () => {
    testImageCache();
    fx.dataDir = mkdtempSync(prefix);
    fx.proxy = await stubProxy(proxyText);
  });
  afterAll(() => {
    fx.proxy.close();
    rmSync(fx.dataDir, { recursive: true, force: true });
  }, 600_000);
  return fx;
}
