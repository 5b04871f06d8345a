// Per-stream credit windows (PROTOCOL.md, "Flow control").
import { Readable } from 'node:stream';
import { AgentError } from './agent-errors.js';
import { MAX_PAYLOAD } from './protocol.js';

/**
 * Readable fed by DATA frames. Credit goes back to the agent only for bytes that
 * left this stream's buffer, so a slow consumer holds at most `window` bytes here
 * and the agent never sends more.
 */
export class CreditReadable extends Readable {
  private received = 0;
  private returned = 0;
  private discarding = false;
  private settling = false;

  constructor(
    private readonly grant: (n: number) => void,
    window: number,
    private readonly onAbort?: () => void,
  ) {
    super({ highWaterMark: window });
  }

  receive(chunk: Buffer): void {
    this.received += chunk.length;
    if (this.discarding) {
      this.returnCredit(chunk.length);
      return;
    }
    this.push(chunk);
  }

  finish(err?: Error): void {
    if (this.readableEnded || this.destroyed) return;
    if (err && this.listenerCount('error') > 0) this.destroy(err);
    else this.push(null);
  }

  // Node calls _read before it takes the chunk out of the buffer: settle a tick later.
  override _read(): void {
    if (this.settling) return;
    this.settling = true;
    process.nextTick(() => {
      this.settling = false;
      const consumed = this.received - this.readableLength - this.returned;
      if (consumed > 0 && !this.discarding) this.returnCredit(consumed);
    });
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    if (!this.readableEnded && this.onAbort) {
      this.onAbort();
      cb(err);
      return;
    }
    // nobody reads any more: keep the producer unblocked, drop what arrives
    this.discarding = true;
    const unreturned = this.received - this.returned;
    if (unreturned > 0) this.returnCredit(unreturned);
    cb(err);
  }

  private returnCredit(n: number): void {
    this.returned += n;
    this.grant(n);
  }
}

/** Credit the agent granted us for one outbound channel. */
export class SendCredit {
  private credit = 0;
  private waiters: Array<() => void> = [];
  private failure?: AgentError;
  private failureOf?: () => AgentError;

  add(n: number): void {
    this.credit += n;
    this.wake();
  }

  /** `err` may be a function: the error is then made only if somebody waits or asks (an exec's normal end fails its stdin credit). */
  fail(err: AgentError | (() => AgentError)): void {
    if (!this.failure && !this.failureOf) {
      if (typeof err === 'function') this.failureOf = err;
      else this.failure = err;
    }
    this.wake();
  }

  get failed(): AgentError | undefined {
    if (!this.failure && this.failureOf) this.failure = this.failureOf();
    return this.failure;
  }

  /** Resolves with the number of bytes (<= max) that may be sent now. */
  async take(max: number): Promise<number> {
    for (;;) {
      const failed = this.failed;
      if (failed) throw failed;
      if (this.credit > 0) {
        const n = Math.min(this.credit, max, MAX_PAYLOAD);
        this.credit -= n;
        return n;
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** Send `buf` as DATA frames within credit. */
export async function sendWithCredit(credit: SendCredit, buf: Buffer, sendData: (chunk: Buffer) => Promise<void>): Promise<void> {
  let off = 0;
  while (off < buf.length) {
    const n = await credit.take(buf.length - off);
    await sendData(buf.subarray(off, off + n));
    off += n;
  }
}
