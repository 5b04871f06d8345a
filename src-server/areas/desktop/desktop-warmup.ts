import { createHash } from 'node:crypto';
import type { TemplateWarmup } from '../boxes/ports.js';
import { START_SCRIPT } from './desktop-service.js';

/**
 * The desktop, up in every template of an image that has one (the `desktop` image's
 * `box-desktop-start`): Xvfb, the Xfce session and the live view's VNC server are running
 * when the template's RAM is saved, so a desktop box (a clone) shows its screen from its
 * first instant instead of booting X. Images without the script skip it.
 */
export const desktopWarmup: TemplateWarmup = {
  key: `desktop:${createHash('sha256').update(START_SCRIPT).digest('hex').slice(0, 12)}`,
  // Chromium's start translates ~450 MiB of guest code under TCG: in the 64 MiB default cache
  // QEMU flushed it without end and the window never painted; at 512 its page shows (issue 37).
  tcgCache: { image: 'desktop', mib: 512 },
  async run(guest) {
    const r = await guest.sh(`${START_SCRIPT.replace('exit 45', 'exit 0')} && sleep 2`, 900_000);
    if (r.exitCode !== 0) throw new Error(`desktop warm-up failed: ${r.stderr.slice(-500)}`);
  },
};
