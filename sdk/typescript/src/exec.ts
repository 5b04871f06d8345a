import { randomUUID } from 'node:crypto';
import { BoxConnectionError, BoxError } from './errors.js';
import type { Http } from './http.js';
import type { ExecBody, ExecWireEvent } from './types.js';

/** Options of a command: working directory, environment, user, timeout (seconds). */
export interface ExecOptions {
  cwd?: string;
  env?: Record<string, string>;
  user?: string;
  /** Seconds before the command is stopped (status `timed_out`). */
  timeout?: number;
  /** Sent to the command's stdin, then end of input. */
  stdin?: string | Uint8Array;
  signal?: AbortSignal;
}

/** One piece of output, in the order the box produced it. */
export interface OutputEvent {
  stream: 'stdout' | 'stderr';
  /** The bytes as text (UTF-8; a character split across pieces is kept whole). */
  data: string;
  /** The raw bytes. */
  bytes: Uint8Array;
  /** Position of this piece in the command's output (1, 2, ...). */
  seq: number;
}

export type ExecStatus = Extract<ExecWireEvent, { type: 'exit' }>['status'];

/** How a command ended. */
export interface ExecOutcome {
  execId: string;
  status: ExecStatus;
  /** The exit code; null when the command did not exit by itself (killed, timed out). */
  exitCode: number | null;
  /** Errors the service reported on the stream (code and message). */
  errors: { code: string; message: string }[];
}

/** A finished command with all of its output. */
export interface ExecResult extends ExecOutcome {
  stdout: string;
  stderr: string;
}

const REATTACH_TRIES = 3;

/**
 * A running command: an async iterator of its output events (`for await (const ev of s)`),
 * then `wait()` for how it ended. Output arrives as the box produces it. A stream broken by
 * the network re-attaches to the same command (its idempotency key replays it from the
 * start; pieces already delivered are skipped by their seq), so the command runs once.
 */
export class ExecStream implements AsyncIterable<OutputEvent> {
  /** The command's id once the service has started it. */
  execId = '';
  /** How it ended, once the iteration is done. */
  outcome: ExecOutcome | undefined;
  private started = false;
  private readonly body: ExecBody;

  /** @internal */
  constructor(
    private readonly http: Http,
    private readonly boxId: string,
    command: string | string[],
    private readonly opts: ExecOptions = {},
  ) {
    this.body = {
      command,
      cwd: opts.cwd,
      env: opts.env,
      user: opts.user,
      timeout: opts.timeout,
      open_stdin: opts.stdin !== undefined ? true : undefined,
      idempotency_key: `sdk-${randomUUID()}`,
    };
  }

  [Symbol.asyncIterator](): AsyncIterator<OutputEvent> {
    if (this.started) throw new BoxError('an ExecStream can be iterated once');
    this.started = true;
    return this.run();
  }

  /** Waits for the end (reading and dropping output not iterated yet). */
  async wait(): Promise<ExecOutcome> {
    if (!this.started) for await (const _ of this);
    if (!this.outcome) throw new BoxError('the command has not ended: finish iterating its output first');
    return this.outcome;
  }

  /** Asks the service to stop the command (SIGTERM; `force`: SIGKILL). */
  async cancel(force = false): Promise<void> {
    if (!this.execId) throw new BoxError('the command has not started yet');
    await this.http.json('POST', `/v1/boxes/${encodeURIComponent(this.boxId)}/exec/${encodeURIComponent(this.execId)}/cancel`, { json: { force } });
  }

  private async *run(): AsyncGenerator<OutputEvent> {
    const decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
    const errors: ExecOutcome['errors'] = [];
    let lastSeq = 0;
    const path = `/v1/boxes/${encodeURIComponent(this.boxId)}/exec`;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.http.request('POST', path, { json: this.body, signal: this.opts.signal });
      } catch (e) {
        if (attempt < REATTACH_TRIES && this.execId && e instanceof BoxConnectionError) {
          await new Promise((r) => setTimeout(r, 300 * (attempt + 1)));
          continue;
        }
        throw e;
      }
      try {
        for await (const ev of ndjson<ExecWireEvent>(res)) {
          if (ev.type === 'started') {
            const first = !this.execId;
            this.execId = ev.exec_id;
            if (first && this.opts.stdin !== undefined) await this.sendStdin(this.opts.stdin);
          } else if (ev.type === 'stdout' || ev.type === 'stderr') {
            if (ev.seq <= lastSeq) continue;
            lastSeq = ev.seq;
            const bytes = Buffer.from(ev.data, 'base64');
            yield { stream: ev.type, data: decoders[ev.type].decode(bytes, { stream: true }), bytes, seq: ev.seq };
          } else if (ev.type === 'error') {
            errors.push({ code: ev.code, message: ev.message });
          } else if (ev.type === 'exit') {
            this.outcome = { execId: this.execId, status: ev.status, exitCode: ev.return_code, errors };
            return;
          }
        }
      } catch (e) {
        if (this.opts.signal?.aborted || attempt >= REATTACH_TRIES || !this.execId)
          throw new BoxError(`the exec stream broke: ${(e as Error).message}`, { cause: e });
        continue;
      }
      if (attempt >= REATTACH_TRIES || !this.execId) throw new BoxError('the exec stream ended without an exit event');
    }
  }

  /** Sends all of stdin in pieces of at most 8 MiB (the service's limit), each at its offset, then EOF. */
  private async sendStdin(data: string | Uint8Array) {
    const p = `/v1/boxes/${encodeURIComponent(this.boxId)}/exec/${encodeURIComponent(this.execId)}/stdin`;
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    const PIECE = 8 * 1024 * 1024;
    for (let at = 0; at === 0 || at < bytes.length; at += PIECE) {
      const last = at + PIECE >= bytes.length;
      await this.http.json('PUT', p, { query: { offset: at, eof: last ? 'true' : undefined }, body: bytes.subarray(at, at + PIECE) });
    }
  }
}

/** Runs a command to its end and collects its output. */
export async function collect(stream: ExecStream): Promise<ExecResult> {
  const out = { stdout: [] as Uint8Array[], stderr: [] as Uint8Array[] };
  for await (const ev of stream) out[ev.stream].push(ev.bytes);
  const o = await stream.wait();
  return { ...o, stdout: Buffer.concat(out.stdout).toString('utf8'), stderr: Buffer.concat(out.stderr).toString('utf8') };
}

/** Parses an NDJSON body line by line as it arrives. @internal */
export async function* ndjson<T>(res: Response): AsyncGenerator<T> {
  if (!res.body) return;
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) yield JSON.parse(line) as T;
    }
  }
  buf += decoder.decode();
  if (buf.trim()) yield JSON.parse(buf) as T;
}
