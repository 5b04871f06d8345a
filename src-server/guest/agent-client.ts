// Host side of the guest agent channel (resources/guest/PROTOCOL.md).
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import net from 'node:net';
import type { Readable } from 'node:stream';
import { AgentError } from './agent-errors.js';
import { AgentExec, DEFAULT_WINDOW, type ExecOptions, type StreamConn, encodeExec, shapeOf } from './agent-exec.js';
import * as files from './agent-files.js';
import { connectOnce, loadFactor, MAX_HELLO_WAIT_MS, sleep, type ClientOptions, type ConnectOptions } from './agent-connect.js';
import { parseHello, type HelloInfo } from './agent-hello.js';
import { Fields, FrameDecoder, HDR_LEN, M, MAX_PAYLOAD, T, encodeFields, encodeFrame, type Frame } from './protocol.js';

export type { AgentExec, SignalName } from './agent-exec.js';
export type { FileEntry } from './agent-files.js';

/** One connection to one guest agent. Events: 'close' (AgentError) when the channel drops, 'agent-error' (AgentError) for connection-level errors,
 * 'hello' (HelloInfo) after every new session (the execs of the previous one are detached). */
export class AgentClient extends EventEmitter implements StreamConn, files.Channel {
  /** resolves (never rejects) when the connection is gone */
  readonly closed: Promise<AgentError>;
  info: HelloInfo | null = null;

  private readonly decoder = new FrameDecoder();
  private readonly handlers = new Map<number, files.StreamHandler>();
  private nextId = 1;
  private closedErr: AgentError | null = null;
  private resolveClosed!: (e: AgentError) => void;
  private drain: Promise<void> | null = null;
  private hellosInFlight = 0;
  private readonly requestTimeoutMs: number;
  private readonly helloFields: Buffer;

  constructor(
    private readonly socket: net.Socket,
    opts: ClientOptions = {},
  ) {
    super();
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 30_000;
    this.helloFields = encodeFields([
      [T.GRACE_MS, opts.orphanGraceMs],
      [T.ORPHANS_KILL, opts.killOrphans === undefined ? undefined : opts.killOrphans ? 1 : 0],
    ]);
    this.closed = new Promise((r) => (this.resolveClosed = r));
    socket.on('data', (c: Buffer) => this.onData(c));
    socket.on('close', () => this.teardown(new AgentError('disconnected', 'agent connection closed')));
    socket.on('error', (e) => this.teardown(new AgentError('disconnected', `agent connection: ${e.message}`)));
  }

  /** Connect to the agent's socket (retrying until the deadline) and exchange HELLO, backing off scaled to load (a late reply is dropped). */
  static async connect(path: string, opts: ConnectOptions = {}): Promise<AgentClient> {
    const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
    let wait = (opts.helloRetryMs ?? 1000) * loadFactor();
    let last = 'no attempt';
    while (Date.now() < deadline) {
      if (opts.gone?.()) throw new AgentError('disconnected', `agent at ${path} will not answer: ${opts.gone()} (last attempt: ${last})`);
      let sock: net.Socket;
      try {
        sock = await connectOnce(path);
      } catch (e) {
        last = (e as Error).message;
        await sleep(50);
        continue;
      }
      const client = new AgentClient(sock, opts);
      for (let attempt = 0; Date.now() < deadline && !client.closedErr && !opts.gone?.(); attempt++) {
        if (attempt === 1) client.flush(); // once is enough: bytes stay in order
        try {
          await client.hello(Math.min(wait, Math.max(1, deadline - Date.now())));
          return client;
        } catch (e) {
          last = (e as Error).message;
          wait = Math.min(wait * 2, MAX_HELLO_WAIT_MS * loadFactor());
        }
      }
      client.close();
      await sleep(50);
    }
    throw new AgentError('timeout', `agent at ${path} not ready: ${last}`);
  }

  get connected(): boolean {
    return this.closedErr === null;
  }

  /**
   * Start (or restart) the session. The agent detaches the execs of any earlier session
   * (they keep running; `info.detached` lists them), drops its uploads and downloads,
   * and tells the highest stream id in use so this client never reuses one.
   */
  async hello(timeoutMs = this.requestTimeoutMs): Promise<HelloInfo> {
    for (const [id, h] of this.handlers) {
      this.handlers.delete(id);
      h.fail(new AgentError('disconnected', 'agent session restarted'));
    }
    this.hellosInFlight++;
    try {
      const info = await this.request(M.HELLO, this.helloFields, (f) => (f.type === M.HELLO_REPLY ? parseHello(f) : undefined), timeoutMs);
      this.info = info;
      this.nextId = Math.max(this.nextId, info.maxStream + 1);
      this.emit('hello', info);
      return info;
    } finally {
      this.hellosInFlight--;
    }
  }

  async ping(): Promise<{ version: string; uptimeMs: number }> {
    const info = await this.request(M.PING, Buffer.alloc(0), (f) => (f.type === M.PONG ? parseHello(f) : undefined));
    return { version: info.version, uptimeMs: info.uptimeMs };
  }

  /** Set the guest clock (needed after every restore). driftMs = host - guest before the set. */
  async syncTime(epochNs?: bigint): Promise<{ applied: boolean; driftMs: number }> {
    const ns = epochNs ?? BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
    const fl = await this.request(M.TIME_SET, encodeFields([[T.TIME_NS, ns]]), okFields);
    return { applied: fl.int(T.APPLIED) === 1, driftMs: Number(ns - (fl.bigint(T.PREV_NS) ?? ns)) / 1e6 };
  }

  /** Mixes host randomness into the guest RNG; `hostname` also sets the guest's (a clone's identity). */
  async reseed(bytes: Buffer = randomBytes(64), hostname?: string): Promise<{ credited: boolean }> {
    const fields: Parameters<typeof encodeFields>[0] = [[T.BYTES, bytes]];
    if (hostname !== undefined) fields.push([T.HOSTNAME, hostname]);
    const fl = await this.request(M.RESEED, encodeFields(fields), okFields);
    return { credited: fl.int(T.APPLIED) === 1 };
  }

  exec(opts: ExecOptions): AgentExec {
    const payload = encodeExec(opts);
    if (this.closedErr) {
      const e = new AgentExec(this, 0, shapeOf(opts));
      e.fail(this.closedErr);
      return e;
    }
    // sent first: the guest starts while the handles are built (no answer lands this turn)
    const id = this.nextId++;
    this.sendControl(M.EXEC, 0, id, payload);
    const ex = new AgentExec(this, id, shapeOf(opts));
    this.handlers.set(id, ex);
    return ex;
  }

  /**
   * Re-binds a detached exec to this session: the agent answers like EXEC (started, with
   * the stdin credit left), then sends the output it held, EOFs and EXIT if it exited.
   * tty/stdin default to what the last HELLO listed. An unknown stream → exit rejects
   * with `not_found`.
   */
  attach(stream: number, opts: { tty?: boolean; stdin?: boolean; outputWindow?: number } = {}): AgentExec {
    const listed = this.info?.detached.find((d) => d.stream === stream);
    const shape = { tty: opts.tty ?? listed?.tty ?? false, stdin: opts.stdin ?? listed?.stdin ?? false, outputWindow: opts.outputWindow };
    const ex = new AgentExec(this, stream, shape);
    if (this.closedErr || this.handlers.has(stream) || stream <= 0) {
      ex.fail(this.closedErr ?? new AgentError('invalid', `stream ${stream} is in use by this client`));
      return ex;
    }
    this.nextId = Math.max(this.nextId, stream + 1);
    this.handlers.set(stream, ex);
    this.sendControl(M.ATTACH, 0, stream, encodeFields([[T.WINDOW, opts.outputWindow ?? DEFAULT_WINDOW]]));
    return ex;
  }

  /** Kills a detached exec's process group; the agent forgets it (no answer, no EXIT). */
  killDetached(stream: number): void {
    this.sendControl(M.RESET, 0, stream);
  }

  writeFile(path: string, opts: files.WriteFileOptions, source: files.FileSource): Promise<{ sizeBytes: number; xattrsSet?: number }> {
    return files.writeFile(this, path, opts, source);
  }

  readFile(path: string, opts: { windowBytes?: number; user?: string } = {}): Promise<{ mode: number; size: number | null; stream: Readable }> {
    return files.readFile(this, path, opts.windowBytes ?? 1024 * 1024, opts.user);
  }

  stat(path: string, opts: { follow?: boolean } = {}): Promise<files.FileEntry> {
    return files.stat(this, path, opts.follow ?? true);
  }

  /** The entries in batches as they arrive (agent-files.ts listDirBatches). */
  listDir(path: string): AsyncGenerator<files.FileEntry[]> {
    return files.listDirBatches(this, path);
  }

  mkdir(path: string, opts: { mode?: number } = {}): Promise<void> {
    return files.mkdir(this, path, opts.mode);
  }

  close(): void {
    this.socket.destroy();
    this.teardown(new AgentError('disconnected', 'closed by host'));
  }

  // ---- channel plumbing (used by AgentExec and agent-files) ----

  /** @internal */
  allocate(handler: files.StreamHandler): number {
    const id = this.nextId++;
    if (this.closedErr) queueMicrotask(() => handler.fail(this.closedErr!));
    else this.handlers.set(id, handler);
    return id;
  }

  /** @internal */
  release(stream: number): void {
    this.handlers.delete(stream);
  }

  /** @internal */
  sendControl(type: number, flags: number, stream: number, payload?: Buffer): void {
    if (!this.closedErr) this.socket.write(encodeFrame(type, flags, stream, payload));
  }

  /** @internal writes one DATA frame, waiting while the socket buffer is full */
  async sendData(stream: number, flags: number, chunk: Buffer): Promise<void> {
    if (this.closedErr) throw this.closedErr;
    if (this.drain) await this.drain;
    if (this.closedErr) throw this.closedErr;
    if (!this.socket.write(encodeFrame(M.DATA, flags, stream, chunk)) && !this.drain) {
      this.drain = new Promise<void>((r) => {
        const done = () => {
          this.socket.off('drain', done);
          this.socket.off('close', done);
          this.drain = null;
          r();
        };
        this.socket.on('drain', done);
        this.socket.on('close', done);
      });
    }
  }

  /** @internal */
  request<R>(type: number, payload: Buffer, accept: (f: Frame) => R | undefined, timeoutMs = this.requestTimeoutMs): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.release(id);
        reject(new AgentError('timeout', `agent did not answer 0x${type.toString(16)} within ${timeoutMs} ms`));
      }, timeoutMs);
      const id = this.allocate({
        onFrame: (f) => {
          if (f.type === M.ERROR) return finish(() => reject(errorFrame(f)));
          const v = accept(f);
          if (v !== undefined) finish(() => resolve(v));
        },
        fail: (err) => finish(() => reject(err)),
      });
      const finish = (fn: () => void) => {
        clearTimeout(timer);
        this.release(id);
        fn();
      };
      this.sendControl(type, 0, id, payload);
    });
  }

  /** Complete any partial frame the agent may hold, so the next HELLO is seen (PROTOCOL.md, Recovery). */
  private flush(): void {
    this.socket.write(Buffer.alloc(HDR_LEN + MAX_PAYLOAD));
  }

  private onData(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.decoder.push(chunk);
    } catch (e) {
      this.socket.destroy();
      this.teardown(new AgentError('io', (e as Error).message));
      return;
    }
    for (const f of frames) {
      if (f.stream === 0 && f.type === M.ERROR) {
        const err = errorFrame(f);
        this.emit('agent-error', err);
        // the agent discards input until a HELLO: resynchronise unless one is under way
        if (this.hellosInFlight === 0) this.hello().catch(() => undefined);
        continue;
      }
      this.handlers.get(f.stream)?.onFrame(f);
    }
  }

  private teardown(err: AgentError): void {
    if (this.closedErr) return;
    this.closedErr = err;
    const hs = [...this.handlers.values()];
    this.handlers.clear();
    for (const h of hs) h.fail(err);
    this.resolveClosed(err);
    this.emit('close', err);
  }
}

function okFields(f: Frame): Fields | undefined {
  return f.type === M.OK ? new Fields(f.payload) : undefined;
}

function errorFrame(f: Frame): AgentError {
  const fl = new Fields(f.payload);
  return AgentError.fromWire(fl.str(T.CODE), fl.str(T.MESSAGE), fl.int(T.ERRNO));
}
