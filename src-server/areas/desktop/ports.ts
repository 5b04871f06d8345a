import type { BoxRecord, GuestAgent } from '../boxes/ports.js';

/**
 * What the desktop area needs from the boxes area (adapted from BoxService by module.ts):
 * a running box's guest agent, activity for auto-sleep, word when a box goes, and its VM's CPU time.
 */
export interface DesktopBoxes {
  /** A sleeping box wakes (like exec); a paused or stopped one is refused (409). */
  ensureRunning(box: BoxRecord): Promise<BoxRecord>;
  touch(boxId: string): Promise<void>;
  agent(boxId: string): Promise<GuestAgent>;
  onGone(fn: (boxId: string) => void): void;
  /** The CPU time its VM has used so far, in seconds (undefined where the runtime cannot say). */
  cpuSeconds(boxId: string): Promise<number | undefined>;
}
