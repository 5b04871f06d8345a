// Connecting to a guest agent's socket, and the options of a connection.
import net from 'node:net';

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
  /** wait this long for a HELLO reply before flushing and asking again; default 1 s */
  helloRetryMs?: number;
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
