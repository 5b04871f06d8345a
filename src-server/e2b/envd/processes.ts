import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import type { ExecEvent } from '../../contract/exec.js';
import type { ExecPort, ExecSession } from '../ports.js';
import { rpcError } from '../wire-errors.js';
import { targetOf, resolvePath, type Target } from './target.js';

interface ProcessConfig {
  cmd: string;
  args: string[];
  envs: Record<string, string>;
  cwd?: string;
}
interface Proc {
  boxId: string;
  pid: number;
  tag?: string;
  config: ProcessConfig;
  pty: boolean;
  session: ExecSession;
}
type Selector = { selector: { case: 'pid'; value: number } | { case: 'tag'; value: string } | { case: undefined } };
type Event = {
  event:
    | { case: 'start'; value: { pid: number } }
    | { case: 'data'; value: { output: { case: 'stdout' | 'stderr' | 'pty'; value: Uint8Array } } }
    | { case: 'end'; value: { exitCode: number; exited: boolean; status: string; error?: string } }
    | { case: 'keepalive'; value: object };
};

const KEEPALIVE_HEADER = 'keepalive-ping-interval';

/** A queue an async generator drains: events pushed by callbacks, ended once. */
class Feed<T> {
  private items: T[] = [];
  private wake: (() => void) | undefined;
  private done = false;
  push(v: T) {
    this.items.push(v);
    this.wake?.();
  }
  end() {
    this.done = true;
    this.wake?.();
  }
  async *drain(signal: AbortSignal): AsyncGenerator<T> {
    const onAbort = () => this.end();
    signal.addEventListener('abort', onAbort);
    try {
      for (;;) {
        while (this.items.length) yield this.items.shift()!;
        if (this.done) return;
        await new Promise<void>((r) => (this.wake = r));
        this.wake = undefined;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
}

const SHELL_READY_MS = 5000;

/**
 * A terminal's start is answered once its shell has written something (its prompt) or at
 * most SHELL_READY_MS: under TCG a login shell takes a second or more to read its profile,
 * and a client that types and disconnects at once would see only the terminal's echo.
 * Nothing is lost either way (the stream replays from the start).
 */
async function shellReady(session: ExecSession): Promise<void> {
  let ready!: () => void;
  const written = new Promise<void>((r) => (ready = r));
  const detach = session.attach((e: ExecEvent) => e.type !== 'started' && ready()); // output, or its end
  const timer = setTimeout(ready, SHELL_READY_MS);
  await written;
  clearTimeout(timer);
  detach();
}

/**
 * envd's process service on Box's exec: each started process is an exec of the sandbox's
 * box with a pid of this service's own numbering (Box does not expose guest pids); it
 * outlives the stream that started it, as envd's do, until it ends or is killed.
 */
export class EnvdProcesses {
  private procs = new Map<string, Map<number, Proc>>();
  private nextPid = new Map<string, number>();

  /** running: whether the box still runs (a process that ends with its sandbox drops its stream, as envd does). */
  constructor(
    private execs: ExecPort,
    private running: (boxId: string) => Promise<boolean> = () => Promise.resolve(true),
  ) {}

  private of(boxId: string): Map<number, Proc> {
    let m = this.procs.get(boxId);
    if (!m) this.procs.set(boxId, (m = new Map()));
    return m;
  }

  private find(t: Target, sel: Selector | undefined): Proc {
    const s = sel?.selector;
    const all = [...this.of(t.box.box_id).values()];
    const p = s?.case === 'pid' ? all.find((x) => x.pid === s.value) : s?.case === 'tag' ? all.find((x) => x.tag === s.value) : undefined;
    if (!p || p.session.status !== 'running')
      throw new ConnectError(`process with ${s?.case ?? 'pid'} ${s && 'value' in s ? String(s.value) : '(none)'} not found`, Code.NotFound);
    return p;
  }

  private async launch(
    t: Target,
    req: {
      process?: { cmd: string; args: string[]; envs: Record<string, string>; cwd?: string };
      pty?: { size?: { cols: number; rows: number } };
      tag?: string;
      stdin?: boolean;
    },
  ) {
    if (!req.process?.cmd) throw new ConnectError('process.cmd is required', Code.InvalidArgument);
    const config: ProcessConfig = { cmd: req.process.cmd, args: req.process.args, envs: req.process.envs, cwd: req.process.cwd };
    const size = req.pty?.size;
    const session = await this.execs
      .start(t.box, {
        command: [config.cmd, ...config.args],
        env: { ...t.row.envs, ...config.envs },
        cwd: config.cwd ? resolvePath(config.cwd, t.user) : undefined,
        user: t.user,
        tty: req.pty ? { cols: size?.cols || 80, rows: size?.rows || 24 } : undefined,
        open_stdin: !!req.stdin || !!req.pty,
      })
      .catch((e: unknown) => {
        throw rpcError(e);
      });
    const pid = (this.nextPid.get(t.box.box_id) ?? 1000) + 1;
    this.nextPid.set(t.box.box_id, pid);
    const proc: Proc = { boxId: t.box.box_id, pid, tag: req.tag, config, pty: !!req.pty, session };
    const table = this.of(t.box.box_id);
    table.set(pid, proc);
    void session.done.then(() => setTimeout(() => table.delete(pid), 30_000).unref());
    return proc;
  }

  /** The events of a process from now on (replay = from its start), with keepalives as the client asks. */
  private async *events(p: Proc, ctx: HandlerContext, replay: boolean): AsyncGenerator<Event> {
    const feed = new Feed<Event>();
    let live = replay;
    let dropped = false;
    const ended = (e: Extract<ExecEvent, { type: 'error' | 'exit' }>) => {
      if (e.type === 'error') {
        feed.push({ event: { case: 'end', value: { exitCode: -1, exited: false, status: 'error', error: e.message } } });
        feed.end();
      } else if (e.type === 'exit') {
        const code = e.return_code ?? -1;
        const status = e.status === 'cancelled' || (code > 128 && e.status !== 'succeeded') ? `signal: ${code - 128}` : `exit status ${code}`;
        feed.push({ event: { case: 'end', value: { exitCode: code, exited: e.status !== 'cancelled', status } } });
        feed.end();
      }
    };
    const detach = p.session.attach((e: ExecEvent) => {
      if (!live || dropped) return;
      if (e.type === 'stdout' || e.type === 'stderr') {
        feed.push({ event: { case: 'data', value: { output: { case: p.pty ? 'pty' : e.type, value: Buffer.from(e.data, 'base64') } } } });
        return;
      }
      if (e.type !== 'error' && e.type !== 'exit') return;
      // Killed (or paused) with its sandbox: envd is gone too, and the client sees its
      // connection drop (the SDK then asks /health, which answers 502: its TimeoutError).
      // The end is the last event, so the check may take its time.
      void this.running(p.boxId)
        .catch(() => true)
        .then((up) => {
          if (dropped) return;
          if (!up) {
            dropped = true;
            return feed.end();
          }
          ended(e);
        });
    });
    live = true;
    const every = Number(ctx.requestHeader.get(KEEPALIVE_HEADER));
    const beat = every > 0 ? setInterval(() => feed.push({ event: { case: 'keepalive', value: {} } }), every * 1000) : undefined;
    try {
      yield { event: { case: 'start', value: { pid: p.pid } } };
      yield* feed.drain(ctx.signal);
      if (dropped) {
        targetOf(ctx).drop?.();
        await new Promise<void>((r) => {
          ctx.signal.addEventListener('abort', () => r());
          setTimeout(r, 5000).unref();
        });
      }
    } finally {
      clearInterval(beat);
      detach();
    }
  }

  impl() {
    return {
      start: async function* (this: EnvdProcesses, req: Parameters<EnvdProcesses['launch']>[1], ctx: HandlerContext) {
        const p = await this.launch(targetOf(ctx), req);
        if (p.pty) await shellReady(p.session);
        for await (const e of this.events(p, ctx, true)) yield { event: e };
      }.bind(this),
      connect: async function* (this: EnvdProcesses, req: { process?: Selector }, ctx: HandlerContext) {
        const p = this.find(targetOf(ctx), req.process);
        for await (const e of this.events(p, ctx, false)) yield { event: e };
      }.bind(this),
      list: (_req: object, ctx: HandlerContext) => {
        const t = targetOf(ctx);
        const running = [...this.of(t.box.box_id).values()].filter((p) => p.session.status === 'running');
        return { processes: running.map((p) => ({ pid: p.pid, tag: p.tag, config: p.config })) };
      },
      sendInput: async (req: { process?: Selector; input?: { input: { case: 'stdin' | 'pty' | undefined; value?: Uint8Array } } }, ctx: HandlerContext) => {
        const p = this.find(targetOf(ctx), req.process);
        const data = req.input?.input.value;
        if (data?.length) await p.session.writeStdin(p.session.stdinThrough, Buffer.from(data)).catch((e: unknown) => Promise.reject(rpcError(e)));
        return {};
      },
      streamInput: async (
        reqs: AsyncIterable<{
          content:
            | { case: 'start'; value: { process?: Selector } }
            | { case: 'data'; value: { input?: { input: { value?: Uint8Array } } } }
            | { case: 'keepalive' | undefined };
        }>,
        ctx: HandlerContext,
      ) => {
        let p: Proc | undefined;
        for await (const r of reqs) {
          if (r.content.case === 'start') p = this.find(targetOf(ctx), r.content.value.process);
          else if (r.content.case === 'data') {
            if (!p) throw new ConnectError('stream input: the start message must come first', Code.InvalidArgument);
            const data = r.content.value.input?.input.value;
            if (data?.length) await p.session.writeStdin(p.session.stdinThrough, Buffer.from(data));
          }
        }
        return {};
      },
      sendSignal: (req: { process?: Selector; signal: number }, ctx: HandlerContext) => {
        const p = this.find(targetOf(ctx), req.process);
        if (req.signal !== 9 && req.signal !== 15)
          throw new ConnectError(`signal ${req.signal} is not supported: send SIGTERM (15) or SIGKILL (9)`, Code.InvalidArgument);
        p.session.cancelled = true;
        p.session.guest.signal(req.signal === 9 ? 'SIGKILL' : 'SIGTERM');
        return {};
      },
      closeStdin: (req: { process?: Selector }, ctx: HandlerContext) => {
        this.find(targetOf(ctx), req.process).session.guest.closeStdin();
        return {};
      },
      update: (req: { process?: Selector; pty?: { size?: { cols: number; rows: number } } }, ctx: HandlerContext) => {
        const p = this.find(targetOf(ctx), req.process);
        const size = req.pty?.size;
        if (size) p.session.guest.resize(size.cols, size.rows);
        return {};
      },
    };
  }

  /** Forgets the processes of a sandbox that is gone. */
  forget(boxId: string) {
    this.procs.delete(boxId);
    this.nextPid.delete(boxId);
  }
}
