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
    const svc = new DesktopService({ ensureRunning: async (b) => b, touch: async () => {}, agent: async () => agent, onGone: () => {} });
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
