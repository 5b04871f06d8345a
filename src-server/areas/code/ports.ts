import type { BoxRecord } from '../boxes/ports.js';
import type { GuestAgent } from '../boxes/ports.js';

/**
 * What the code area needs from the boxes area (its public face, BoxService), and nothing
 * more: a running box's guest agent, the environment every command of the box gets, and
 * word when a box goes.
 */
export interface CodeBoxes {
  /** A sleeping box wakes (like exec); a paused or stopped one is refused (409). */
  ensureRunning(box: BoxRecord): Promise<BoxRecord>;
  /** Records activity for auto-sleep. */
  touch(boxId: string): void;
  /** Keeps the box awake (no auto-sleep) until the returned release is called: a cell runs. */
  hold(boxId: string): () => void;
  agent(boxId: string): Promise<GuestAgent>;
  /** Environment and user the box's commands run with (proxy, inference variables). */
  commandEnv(box: BoxRecord): { env: Record<string, string>; user?: string };
  onGone(fn: (boxId: string) => void): void;
}
