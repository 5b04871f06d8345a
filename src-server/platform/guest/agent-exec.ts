import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import { AgentError } from './agent-errors.js';
import { CreditReadable, SendCredit, sendWithCredit } from './flow.js';
import { CH, Fields, M, T, encodeFields, type Frame } from './protocol.js';

export interface ExecOptions {
  /** argv, or a string run as ["/bin/sh", "-c", command] */
  argv: string[] | string;
  env?: Record<string, string>;
  cwd?: string;
  user?: string;
  tty?: { cols: number; rows: number };
  /** open a stdin pipe (tty mode always has stdin) */
  stdin?: boolean;
  timeoutMs?: number;
  /** credit window per output channel, bytes (default 256 KiB) */
  outputWindow?: number;
  /**
   * A TCP port in the box: the agent connects to 127.0.0.1:port itself and the stream is that
   * connection (stdin to it, its answers on stdout, exit 0 when it closes), no process. When
   * nothing listens there, `argv` runs as usual (agents before the field always run it).
   */
  connectPort?: number;
}

export interface ExecExit {
  exitCode: number | null;
  signal: number | null;
  timedOut: boolean;
}

export type SignalName = 'SIGTERM' | 'SIGKILL' | 'SIGINT' | 'SIGHUP' | 'SIGQUIT' | 'SIGUSR1' | 'SIGUSR2';
const SIGNALS: Record<SignalName, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGUSR1: 10,
  SIGUSR2: 12,
  SIGTERM: 15,
};

/** What an exec needs from the connection. */
export interface StreamConn {
  sendControl(type: number, flags: number, stream: number, payload?: Buffer): void;
  sendData(stream: number, flags: number, chunk: Buffer): Promise<void>;
  release(stream: number): void;
}

export const DEFAULT_WINDOW = 256 * 1024;

/** What an AgentExec needs to know of its command: a fresh one or one re-attached. */
interface ExecShape {
  tty: boolean;
  stdin: boolean;
  outputWindow?: number;
}

export const shapeOf = (o: ExecOptions): ExecShape => ({ tty: !!o.tty, stdin: !!o.stdin, outputWindow: o.outputWindow });

export function encodeExec(o: ExecOptions): Buffer {
  const argv = typeof o.argv === 'string' ? ['/bin/sh', '-c', o.argv] : o.argv;
  if (argv.length === 0) throw new AgentError('invalid', 'argv must not be empty');
  const fields: Array<[number, string | number | undefined]> = argv.map((a) => [T.ARGV, a]);
  for (const [k, v] of Object.entries(o.env ?? {})) fields.push([T.ENV, `${k}=${v}`]);
  fields.push(
    [T.CWD, o.cwd],
    [T.USER, o.user],
    [T.COLS, o.tty?.cols],
    [T.ROWS, o.tty?.rows],
    [T.STDIN, o.stdin ? 1 : 0],
    [T.TIMEOUT_MS, o.timeoutMs],
    [T.WINDOW, o.outputWindow ?? DEFAULT_WINDOW],
    [T.CONNECT, o.connectPort],
  );
  return encodeFields(fields);
}

/**
 * One running command. `stdout`/`stderr` apply backpressure to the guest process
 * through credits. Events: 'started' (pid), 'warning' (AgentError after start).
 * If the connection drops, the streams end (with an 'error' event when someone listens
 * for one) and `exit` rejects with 'disconnected'; the process lives on in the guest,
 * detached, and `AgentClient.attach` on a later connection picks it up again.
 */
export class AgentExec extends EventEmitter {
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly started: Promise<{ pid: number }>;
  readonly exit: Promise<ExecExit>;
  pid: number | null = null;

  private readonly out: [CreditReadable, CreditReadable];
  private readonly stdinCredit = new SendCredit();
  private stdinChain: Promise<void> = Promise.resolve();
  private stdinClosed = false;
  private done = false;
  private resolveStarted!: (v: { pid: number }) => void;
  private rejectStarted!: (e: AgentError) => void;
  private resolveExit!: (v: ExecExit) => void;
  private rejectExit!: (e: AgentError) => void;

  constructor(
    private readonly conn: StreamConn,
    readonly id: number,
    private readonly opts: ExecShape,
  ) {
    super();
    const window = opts.outputWindow ?? DEFAULT_WINDOW;
    const grant = (ch: number) => (n: number) => {
      if (!this.done) conn.sendControl(M.WINDOW, ch, id, encodeFields([[T.WINDOW, n]]));
    };
    this.out = [new CreditReadable(grant(CH.STDOUT), window), new CreditReadable(grant(CH.STDERR), window)];
    this.stdout = this.out[0];
    this.stderr = this.out[1];
    this.started = new Promise((res, rej) => {
      this.resolveStarted = res;
      this.rejectStarted = rej;
    });
    this.started.catch(() => undefined);
    this.exit = new Promise((res, rej) => {
      this.resolveExit = res;
      this.rejectExit = rej;
    });
    // a dropped connection must not crash the service through an unobserved exit
    this.exit.catch(() => undefined);
    if (opts.tty) this.out[1].finish(); // tty: stderr is merged into stdout
  }

  /** @internal */
  onFrame(f: Frame): void {
    switch (f.type) {
      case M.EXEC_STARTED: {
        const fl = new Fields(f.payload);
        this.pid = fl.int(T.PID) ?? null;
        this.stdinCredit.add(fl.int(T.WINDOW) ?? 0);
        this.resolveStarted({ pid: this.pid ?? -1 });
        this.emit('started', this.pid);
        break;
      }
      case M.DATA:
        if (f.flags === CH.STDOUT || f.flags === CH.STDERR) this.out[f.flags - 1].receive(f.payload);
        break;
      case M.EOF:
        if (f.flags === CH.STDOUT || f.flags === CH.STDERR) this.out[f.flags - 1].finish();
        break;
      case M.WINDOW:
        if (f.flags === CH.IN) this.stdinCredit.add(new Fields(f.payload).int(T.WINDOW) ?? 0);
        break;
      case M.EXIT: {
        const fl = new Fields(f.payload);
        this.finish();
        this.resolveExit({
          exitCode: fl.int(T.EXIT_CODE) ?? null,
          signal: fl.int(T.SIGNAL) ?? null,
          timedOut: (fl.int(T.TIMED_OUT) ?? 0) !== 0,
        });
        break;
      }
      case M.ERROR: {
        const fl = new Fields(f.payload);
        const err = AgentError.fromWire(fl.str(T.CODE), fl.str(T.MESSAGE), fl.int(T.ERRNO));
        if (this.pid === null) this.fail(err);
        else this.emit('warning', err);
        break;
      }
    }
  }

  /** @internal connection lost or request failed */
  fail(err: AgentError): void {
    if (this.done) return;
    this.finish(err);
    this.rejectStarted(err);
    this.rejectExit(err);
  }

  private finish(err?: AgentError): void {
    this.done = true;
    this.stdinCredit.fail(err ?? (() => new AgentError('invalid', 'exec has exited')));
    this.out[0].finish(err);
    this.out[1].finish(err);
    this.conn.release(this.id);
  }

  /** Resolves once the agent accepted all of `data` (bounded by its stdin window). */
  writeStdin(data: Buffer | string): Promise<void> {
    if (!this.opts.stdin && !this.opts.tty) return Promise.reject(new AgentError('invalid', 'exec has no stdin'));
    if (this.stdinClosed) return Promise.reject(new AgentError('invalid', 'stdin already closed'));
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    const p = this.stdinChain.then(() => sendWithCredit(this.stdinCredit, buf, (c) => this.conn.sendData(this.id, CH.IN, c)));
    this.stdinChain = p.catch(() => undefined);
    return p;
  }

  /**
   * EOF after everything written so far (tty mode: sends ^D). An exec started without
   * stdin reads /dev/null in the guest: there is nothing to close, and no frame is sent
   * (an EOF there would cost a guest wake-up on every such exec).
   */
  closeStdin(): Promise<void> {
    if (this.stdinClosed) return Promise.resolve();
    this.stdinClosed = true;
    if (!this.opts.stdin && !this.opts.tty) return Promise.resolve();
    return this.stdinChain.then(() => {
      if (!this.done) this.conn.sendControl(M.EOF, CH.IN, this.id);
    });
  }

  /** Signal the exec's process group. */
  signal(sig: SignalName | number): void {
    const n = typeof sig === 'number' ? sig : SIGNALS[sig];
    if (!n) throw new AgentError('invalid', `unknown signal ${String(sig)}`);
    if (!this.done) this.conn.sendControl(M.SIGNAL, 0, this.id, encodeFields([[T.SIGNAL, n]]));
  }

  resize(cols: number, rows: number): void {
    if (!this.done)
      this.conn.sendControl(
        M.RESIZE,
        0,
        this.id,
        encodeFields([
          [T.COLS, cols],
          [T.ROWS, rows],
        ]),
      );
  }

  /** Kill the process group and forget the exec (no exit report); `exit` rejects. */
  abandon(): void {
    if (this.done) return;
    this.conn.sendControl(M.RESET, 0, this.id);
    this.fail(new AgentError('disconnected', 'exec abandoned'));
  }
}
