import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

/** What a tool callback gets besides its arguments (signal, progress token, notifications). */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const KEEP = 64 * 1024;

/**
 * One output stream of a command, bounded for a model's context: the first and the last
 * 64 KiB are kept, what lies between is replaced by a line saying how much was left out.
 */
export class OutputKeeper {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;
  private readonly live = new TextDecoder();

  get truncated() {
    return this.dropped > 0;
  }

  /** Keeps `chunk`; answers its text (for progress messages). */
  add(chunk: Buffer): string {
    const text = this.live.decode(chunk, { stream: true });
    if (this.headBytes < KEEP) {
      const take = Math.min(KEEP - this.headBytes, chunk.length);
      this.head.push(chunk.subarray(0, take));
      this.headBytes += take;
      chunk = chunk.subarray(take);
    }
    if (chunk.length) {
      this.tail.push(chunk);
      this.tailBytes += chunk.length;
      while (this.tailBytes - this.tail[0]!.length >= KEEP) {
        this.tailBytes -= this.tail[0]!.length;
        this.dropped += this.tail.shift()!.length;
      }
    }
    return text;
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    let tail = Buffer.concat(this.tail);
    if (!this.dropped) return head + tail.toString('utf8');
    const cut = tail.length - KEEP;
    if (cut > 0) {
      this.dropped += cut;
      tail = tail.subarray(cut);
    }
    return `${head}\n[... ${this.dropped} bytes left out ...]\n${tail.toString('utf8')}`;
  }
}

/**
 * `notifications/progress` while a tool runs, when the caller asked for them (a progress
 * token in the request's _meta): at most one per 100 ms, each carrying the latest output
 * line as its message and a growing count of output chunks as its progress.
 */
export function progressReporter(extra: ToolExtra): (text: string) => void {
  const token = extra._meta?.progressToken;
  if (token === undefined) return () => {};
  let count = 0;
  let last = 0;
  let pending = '';
  return (text) => {
    count++;
    pending += text;
    const now = Date.now();
    if (now - last < 100) return;
    last = now;
    const lines = pending.trimEnd().split('\n');
    pending = '';
    const message = (lines[lines.length - 1] ?? '').slice(-200);
    void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: count, message } }).catch(() => {});
  };
}
