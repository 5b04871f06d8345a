import type { ExecEvent, ExecStatus } from '../contract/exec.js';
import type { GuestExec } from './runtime-port.js';

const TAIL_BYTES = 64 * 1024;
const REPLAY_BYTES = 4 * 1024 * 1024;

type Listener = (e: ExecEvent) => void;

/**
 * One running command: fans its output out to attached streams, keeps a bounded replay
 * log (so a client that re-attaches with the same idempotency key sees it from the start)
 * and the stdout/stderr tails that `wait` answers.
 */
export class ExecSession {
  status: ExecStatus = 'running';
  returnCode: number | null = null;
  finishedAt: string | null = null;
  cancelled = false;
  stdinThrough = 0;
  private seq = 0;
  private log: ExecEvent[] = [];
  private logBytes = 0;
  private listeners = new Set<Listener>();
  private tails = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  /** Settles once the command ended, its exit was sent to the attached streams, and its record was written. */
  readonly done: Promise<void>;

  constructor(
    readonly id: string,
    readonly boxId: string,
    readonly guest: GuestExec,
    onFinish: (s: ExecSession) => void | Promise<void>,
  ) {
    this.emit({ type: 'started', exec_id: id });
    for (const name of ['stdout', 'stderr'] as const) {
      guest[name].on('data', (chunk: Buffer) => {
        this.keepTail(name, chunk);
        this.emit({ type: name, data: chunk.toString('base64'), seq: ++this.seq });
      });
    }
    const ended = (s: NodeJS.ReadableStream) => new Promise<void>((r) => (s.once('end', r), s.once('close', r), s.once('error', () => r())));
    this.done = Promise.all([guest.exit, ended(guest.stdout), ended(guest.stderr)])
      .then(([res]) => {
        this.returnCode = res.exitCode ?? (res.signal !== null ? 128 + res.signal : null);
        this.status = this.cancelled ? 'cancelled' : res.timedOut ? 'timed_out' : res.exitCode === 0 ? 'succeeded' : 'failed';
      })
      .catch((e: Error) => {
        this.status = this.cancelled ? 'cancelled' : 'failed';
        this.emit({ type: 'error', code: 'agent_error', message: e.message });
      })
      .then(() => {
        this.finishedAt = new Date().toISOString();
        this.emit({ type: 'exit', status: this.status as Exclude<ExecStatus, 'running'>, return_code: this.returnCode });
        this.listeners.clear();
        return onFinish(this);
      });
  }

  private keepTail(name: 'stdout' | 'stderr', chunk: Buffer) {
    const t = this.tails[name];
    t.push(chunk);
    let size = t.reduce((n, b) => n + b.length, 0);
    while (size > TAIL_BYTES && t.length > 1) size -= t.shift()!.length;
  }

  tail(name: 'stdout' | 'stderr'): Buffer {
    const b = Buffer.concat(this.tails[name]);
    return b.length > TAIL_BYTES ? b.subarray(b.length - TAIL_BYTES) : b;
  }

  private emit(e: ExecEvent) {
    this.log.push(e);
    this.logBytes += 'data' in e ? e.data.length : 64;
    while (this.logBytes > REPLAY_BYTES && this.log.length > 2) {
      const [dropped] = this.log.splice(1, 1); // keep "started"
      this.logBytes -= 'data' in dropped! ? dropped.data.length : 64;
    }
    for (const l of this.listeners) l(e);
  }

  /** Replays what happened so far, then streams live; returns a detach function. */
  attach(l: Listener): () => void {
    for (const e of this.log) l(e);
    if (this.status !== 'running' && this.finishedAt) return () => {};
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Accepts stdin bytes at a stream offset; overlapping retries are skipped, gaps refused. */
  async writeStdin(offset: number, data: Buffer): Promise<number | 'gap'> {
    if (offset > this.stdinThrough) return 'gap';
    const fresh = data.subarray(this.stdinThrough - offset);
    if (fresh.length) {
      this.stdinThrough += fresh.length;
      await this.guest.writeStdin(Buffer.from(fresh));
    }
    return this.stdinThrough;
  }
}
