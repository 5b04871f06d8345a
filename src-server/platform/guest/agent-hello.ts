// The HELLO reply of the guest agent (resources/guest/PROTOCOL.md): session facts and detached execs.
import type { ExecExit } from './agent-exec.js';
import { Fields, T, type Frame } from './protocol.js';

export interface HelloInfo {
  version: string;
  protocol: number;
  uptimeMs: number;
  pid: number;
  /** the agent runs as PID 1 of the guest */
  init: boolean;
  /** execs of earlier sessions still known to the agent (HELLO replies only) */
  detached: DetachedExec[];
  /** highest stream id the agent has in use; this client allocates above it */
  maxStream: number;
}

/** An exec whose session ended (connection lost, or a new HELLO): it runs on, unattached. */
interface DetachedExec {
  stream: number;
  pid: number;
  tty: boolean;
  /** stdin still open (not at EOF) */
  stdin: boolean;
  /** set once the process ended; its buffered output is still there to attach to */
  exited: ExecExit | null;
  /** past the grace period under the keep policy: output is being thrown away */
  discarding: boolean;
}

export function parseHello(f: Frame): HelloInfo {
  const fl = new Fields(f.payload);
  return {
    version: fl.str(T.VERSION) ?? '',
    protocol: fl.int(T.PROTO) ?? 0,
    uptimeMs: fl.int(T.UPTIME_MS) ?? 0,
    pid: fl.int(T.PID) ?? 0,
    init: fl.int(T.INIT) === 1,
    detached: fl.all(T.DETACHED).map(parseDetached),
    maxStream: fl.int(T.MAX_STREAM) ?? 0,
  };
}

function parseDetached(b: Buffer): DetachedExec {
  const d = new Fields(b);
  const exited = d.int(T.EXITED) === 1;
  return {
    stream: d.int(T.STREAM) ?? 0,
    pid: d.int(T.PID) ?? 0,
    tty: d.int(T.TTY) === 1,
    stdin: d.int(T.STDIN) === 1,
    exited: exited ? { exitCode: d.int(T.EXIT_CODE) ?? null, signal: d.int(T.SIGNAL) ?? null, timedOut: d.int(T.TIMED_OUT) === 1 } : null,
    discarding: d.int(T.DISCARDING) === 1,
  };
}
