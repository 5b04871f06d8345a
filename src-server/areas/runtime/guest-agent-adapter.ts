import { PassThrough, type Readable } from 'node:stream';
import type { ExecResult, GuestAgent, GuestExec } from '../boxes/ports.js';
import type { AgentClient, AgentExec, FileEntry, SignalName } from '../../platform/guest/agent-client.js';

const entry = (e: FileEntry) => ({ name: e.name, type: e.type, size: e.size, modified_time: e.mtime, mode: e.mode });

/**
 * The GuestExec the box domain holds: it outlives agent connections. The process runs on
 * in the guest when the connection goes (pause, sleep, service restart — PROTOCOL.md,
 * "Detached execs"); the runtime re-binds the facade to the exec of the next connection
 * (`bind`) or ends it when the process is gone (`fail`). Output flows through PassThrough
 * streams fed by whichever AgentExec is current, with its credit-based backpressure;
 * stdin, signals and resizes wait for a binding while there is none. `exit` settles once.
 */
export class ExecFacade implements GuestExec {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly exit: Promise<ExecResult>;
  /** the agent's stream id of the exec (stable across bindings) */
  stream = 0;
  private cur: AgentExec | null = null;
  private settled = false;
  private resolveExit!: (r: ExecResult) => void;
  private rejectExit!: (e: Error) => void;
  private waiters: Array<{ ok: (ex: AgentExec) => void; ko: (e: Error) => void }> = [];
  private stdinChain: Promise<unknown> = Promise.resolve();
  private signals: SignalName[] = [];
  private size: [number, number] | null = null;

  constructor(readonly tty: boolean) {
    this.exit = new Promise((res, rej) => {
      this.resolveExit = res;
      this.rejectExit = rej;
    });
    this.exit.catch(() => undefined);
    for (const name of ['stdout', 'stderr'] as const) this[name].on('drain', () => this.cur?.[name].resume());
  }

  get bound(): boolean {
    return this.cur !== null;
  }

  get done(): boolean {
    return this.settled;
  }

  /** Makes `ex` (a fresh exec or an ATTACH on a new connection) the current process handle. */
  bind(ex: AgentExec): void {
    if (this.settled) return;
    this.cur = ex;
    this.stream = ex.id;
    for (const name of ['stdout', 'stderr'] as const) {
      const src: Readable = ex[name];
      const dst = this[name];
      src.on('error', () => {}); // a dropped connection destroys src: not an end of output
      src.on('data', (c: Buffer) => {
        if (this.cur === ex && !dst.writableEnded && !dst.write(c)) src.pause();
      });
      src.on('end', () => {
        if (this.cur === ex && !dst.writableEnded) dst.end();
      });
    }
    ex.exit.then(
      (r) => this.cur === ex && this.settle(r),
      (e: Error & { code?: string }) => {
        if (this.cur !== ex) return;
        if (e.code === 'disconnected')
          this.cur = null; // detached in the guest: wait for a rebind
        else this.fail(e);
      },
    );
    for (const s of this.signals.splice(0)) ex.signal(s);
    if (this.size) ex.resize(...this.size);
    for (const w of this.waiters.splice(0)) w.ok(ex);
  }

  /** The process is gone (cold boot, VM lost) or cannot be reached again. */
  fail(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.cur = null;
    for (const w of this.waiters.splice(0)) w.ko(err);
    this.stdout.end();
    this.stderr.end();
    this.rejectExit(err);
  }

  private settle(r: ExecResult): void {
    if (this.settled) return;
    this.settled = true;
    this.resolveExit(r);
  }

  private current(): Promise<AgentExec> {
    if (this.cur) return Promise.resolve(this.cur);
    if (this.settled) return Promise.reject(new Error('exec has ended'));
    return new Promise((ok, ko) => this.waiters.push({ ok, ko }));
  }

  /** In order with closeStdin; waits while the box is paused. Bytes in flight when a connection drops may be lost. */
  writeStdin(buf: Buffer): Promise<void> {
    const p = this.stdinChain.then(() => this.current()).then((ex) => ex.writeStdin(buf));
    this.stdinChain = p.catch(() => undefined);
    return p;
  }

  closeStdin(): void {
    const p = this.stdinChain.then(() => this.current()).then((ex) => ex.closeStdin());
    this.stdinChain = p.catch(() => undefined);
  }

  signal(name: 'SIGTERM' | 'SIGKILL' | 'SIGINT' | 'SIGHUP'): void {
    if (this.settled) return;
    if (this.cur) this.cur.signal(name);
    else this.signals.push(name);
  }

  resize(cols: number, rows: number): void {
    this.size = [cols, rows];
    this.cur?.resize(cols, rows);
  }
}

/** The box domain's view of a guest agent connection; `track` learns of every exec started. */
export function guestAgentAdapter(client: AgentClient, track: (f: ExecFacade) => void = () => {}): GuestAgent {
  return {
    exec(o) {
      const ex = client.exec({
        argv: o.argv,
        env: o.env,
        cwd: o.cwd,
        user: o.user,
        tty: o.tty,
        stdin: o.stdin,
        timeoutMs: o.timeoutMs,
        connectPort: o.connectPort,
      });
      const facade = new ExecFacade(!!o.tty);
      facade.bind(ex);
      track(facade);
      return facade;
    },
    writeFile: (p, o, src) =>
      client.writeFile(
        p,
        { mode: o.mode, createParents: o.createParents, durable: o.durable, user: o.user, chownToUser: o.chownToUser, keepMode: o.keepMode, xattrs: o.xattrs },
        src,
      ),
    readFile: (p, o) => client.readFile(p, { user: o?.user }),
    stat: async (p, o) => entry(await client.stat(p, { follow: o.follow })),
    listDir: async function* (p) {
      for await (const batch of client.listDir(p)) yield batch.map(entry);
    },
  };
}
