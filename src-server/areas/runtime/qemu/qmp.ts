/**
 * Minimal QMP client over a unix socket: greeting + qmp_capabilities, `execute` with id
 * correlation and a timeout, and events (`on('event', ...)` or `waitForEvent`).
 */
import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';

interface QmpEvent {
  event: string;
  data?: Record<string, unknown>;
  timestamp?: { seconds: number; microseconds: number };
}

class QmpError extends Error {
  constructor(
    readonly command: string,
    readonly errorClass: string,
    desc: string,
  ) {
    super(`QMP ${command}: ${errorClass}: ${desc}`);
  }
}

interface Pending {
  command: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

export class QmpClient extends EventEmitter {
  private buffer = '';
  private nextId = 1;
  private pending = new Map<string, Pending>();
  private closed = false;
  greeting: unknown;

  private constructor(private readonly socket: Socket) {
    super();
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('close', () => this.onClose());
    socket.on('error', () => this.onClose());
  }

  /** Connects, reads the greeting and negotiates capabilities. */
  static async connect(socketPath: string, opts: { timeoutMs?: number } = {}): Promise<QmpClient> {
    const timeoutMs = opts.timeoutMs ?? 5000;
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect(socketPath);
      const timer = setTimeout(() => {
        s.destroy();
        reject(new Error(`QMP connect timeout: ${socketPath}`));
      }, timeoutMs);
      s.once('connect', () => {
        clearTimeout(timer);
        resolve(s);
      });
      s.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
    const client = new QmpClient(socket);
    client.greeting = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('QMP greeting timeout')), timeoutMs);
      client.once('greeting', (g) => {
        clearTimeout(timer);
        resolve(g);
      });
      client.once('close', () => reject(new Error('QMP closed before greeting')));
    });
    await client.execute('qmp_capabilities', undefined, timeoutMs);
    return client;
  }

  execute<T = unknown>(command: string, args?: Record<string, unknown>, timeoutMs = 10_000): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`QMP closed (${command})`));
    const id = String(this.nextId++);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`QMP ${command}: timeout after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { command, resolve: resolve as (v: unknown) => void, reject, timer });
      this.socket.write(JSON.stringify({ execute: command, ...(args ? { arguments: args } : {}), id }) + '\n');
    });
  }

  /** Resolves with the next event of that name (optionally matching `pred`). */
  waitForEvent(name: string, timeoutMs = 10_000, pred?: (e: QmpEvent) => boolean): Promise<QmpEvent> {
    return new Promise((resolve, reject) => {
      const onEvent = (e: QmpEvent) => {
        if (e.event !== name || (pred && !pred(e))) return;
        cleanup();
        resolve(e);
      };
      const onClose = () => {
        cleanup();
        reject(new Error(`QMP closed while waiting for ${name}`));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`QMP event ${name}: timeout after ${timeoutMs} ms`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.off('event', onEvent);
        this.off('close', onClose);
      };
      this.on('event', onEvent);
      this.once('close', onClose);
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
    this.onClose();
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (!line) continue;
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      if ('QMP' in msg) this.emit('greeting', msg.QMP);
      else if ('event' in msg) this.emit('event', msg as unknown as QmpEvent);
      else if (typeof msg.id === 'string') this.settle(msg.id, msg);
    }
  }

  private settle(id: string, msg: Record<string, unknown>): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if ('error' in msg) {
      const err = msg.error as { class: string; desc: string };
      p.reject(new QmpError(p.command, err.class, err.desc));
    } else p.resolve(msg.return);
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      // `quit` answers and then closes; a close after sending it is its success.
      if (p.command === 'quit') p.resolve({});
      else p.reject(new Error(`QMP closed (${p.command})`));
      this.pending.delete(id);
    }
    this.emit('close');
  }
}
