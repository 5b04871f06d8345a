// Connecting to a guest agent's socket, and the options of a connection.
import net from 'node:net';
import os from 'node:os';

/**
 * How loaded this machine is, as a factor for waits on guests (>= 1): the 1-minute load
 * average per CPU. 42 TCG guests booting on 2 cores answer many times slower than one.
 */
export function loadFactor(): number {
  const cpus = os.availableParallelism?.() ?? os.cpus().length;
  return Math.max(1, Math.min(20, os.loadavg()[0]! / Math.max(1, cpus)));
}

/** The longest single wait for a HELLO reply before asking again (times loadFactor). */
export const MAX_HELLO_WAIT_MS = 5000;

export interface ClientOptions {
  /** deadline for single-reply requests (ping, stat, ...); default 30 s */
  requestTimeoutMs?: number;
  /**
   * Sent with every HELLO: execs nobody attaches within this many ms of it are orphans
   * (agent default 30 s). `killOrphans` kills them then; otherwise they run on and their
   * output is discarded so they never block (nohup).
   */
  orphanGraceMs?: number;
  killOrphans?: boolean;
}

export interface ConnectOptions extends ClientOptions {
  /** overall deadline for socket + HELLO; default 30 s */
  timeoutMs?: number;
  /**
   * wait this long for the first HELLO reply before flushing and asking again; default 1 s.
   * Each further attempt waits twice as long (up to MAX_HELLO_WAIT_MS), all times loadFactor.
   */
  helloRetryMs?: number;
  /**
   * Why the agent can no longer come (its VM process exited), or undefined while it may:
   * asked between attempts, so a dead VM fails the wait at once instead of at the deadline.
   */
  gone?: () => string | undefined;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function connectOnce(path: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.createConnection(path);
    s.once('connect', () => {
      s.removeListener('error', reject);
      resolve(s);
    });
    s.once('error', reject);
  });
}
