/**
 * DesktopService against a fake guest agent: a screenshot of a box whose desktop is not up
 * yet (a box cold-booted while its template builds) starts the desktop, then reads Xvfb's
 * framebuffer file; it does not fall back to a program the image may not have (xwd).
 */
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { BoxRecord, GuestAgent } from '../boxes/ports.js';
import { DesktopService, START_SCRIPT } from './desktop-service.js';
import { FRAMEBUFFER_FILE } from './xdo.js';
import { decodePng, pixel } from './test-support/png.js';
import { xwd } from './test-support/xwd.js';

/** A guest whose screen file exists once its start script has run. */
function fakeGuest() {
  const ran: string[] = [];
  let up = false;
  const agent = {
    readFile: (path: string) => {
      if (path !== FRAMEBUFFER_FILE || !up) return Promise.reject(new Error(`ENOENT: ${path}`));
      return Promise.resolve({ stream: Readable.from([xwd(4, 2, (x) => (x < 2 ? [255, 0, 0] : [0, 0, 255]))]) });
    },
    exec: ({ argv }: { argv: string[] }) => {
      ran.push(argv[2]!);
      if (argv[2] === START_SCRIPT) up = true;
      const [stdout, stderr] = [new PassThrough(), new PassThrough()];
      stdout.end();
      stderr.end(argv[2] === START_SCRIPT ? '' : 'exec: xwd: not found');
      return { stdout, stderr, exit: Promise.resolve({ exitCode: argv[2] === START_SCRIPT ? 0 : 127, timedOut: false }) };
    },
  } as unknown as GuestAgent;
  return { agent, ran };
}

describe('desktop screenshots', () => {
  it('of a box whose desktop is not up: starts it, then reads the framebuffer file (no xwd)', async () => {
    const { agent, ran } = fakeGuest();
    const box = { box_id: 'box_1', name: 'cold', status: 'running' } as BoxRecord;
    const svc = new DesktopService({
      ensureRunning: async (b) => b,
      touch: async () => {},
      agent: async () => agent,
      onGone: () => {},
      cpuSeconds: async () => undefined,
    });
    const png = decodePng(await svc.screenshot(box));
    expect([png.width, png.height]).toEqual([4, 2]);
    expect(pixel(png, 0, 0)).toEqual([255, 0, 0]);
    expect(pixel(png, 3, 1)).toEqual([0, 0, 255]);
    expect(ran).toEqual([START_SCRIPT]);
    // up now: the next one reads the file with nothing run
    await svc.screenshot(box);
    expect(ran).toEqual([START_SCRIPT]);
  });
});

describe("the screen after an action (the gateway's computer-use loop)", () => {
  it('waits while the VM is busy drawing, takes one screenshot once it is quiet for two windows', async () => {
    const { agent } = fakeGuest();
    const box = { box_id: 'box_1', name: 'b', status: 'running' } as BoxRecord;
    // the VM's CPU time: a core's worth while it draws (three reads), then still
    const readings: { at: number; cpu: number }[] = [];
    const t0 = Date.now();
    const svc = new DesktopService({
      ensureRunning: async (b) => b,
      touch: async () => {},
      agent: async () => agent,
      onGone: () => {},
      cpuSeconds: async () => {
        const elapsed = (Date.now() - t0) / 1000;
        const cpu = Math.min(elapsed, 0.4); // busy (1 core) for 0.4 s, then quiet
        readings.push({ at: Date.now() - t0, cpu });
        return cpu;
      },
    });
    const png = decodePng(await svc.settledScreenshot(box));
    expect([png.width, png.height]).toEqual([4, 2]);
    const took = Date.now() - t0;
    // not before the busy part and two quiet windows after it, and well before the 4 s limit
    expect(took).toBeGreaterThanOrEqual(400 + 2 * 150);
    expect(took).toBeLessThan(2000);
    expect(readings.filter((r) => r.at > 400).length).toBeGreaterThanOrEqual(2);
  });

  it('a VM that never goes quiet: the screenshot at the limit (4 s); a runtime without CPU figures: after 1 s', async () => {
    const { agent } = fakeGuest();
    const box = { box_id: 'box_1', name: 'b', status: 'running' } as BoxRecord;
    const t0 = Date.now();
    const base = { ensureRunning: async (b: BoxRecord) => b, touch: async () => {}, agent: async () => agent, onGone: () => {} };
    await new DesktopService({ ...base, cpuSeconds: async () => (Date.now() - t0) / 1000 }).settledScreenshot(box);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(4000);
    const t1 = Date.now();
    await new DesktopService({ ...base, cpuSeconds: async () => undefined }).settledScreenshot(box);
    expect(Date.now() - t1).toBeGreaterThanOrEqual(1000);
  });
});
