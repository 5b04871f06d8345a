import { Readable, Writable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * A request and a response without a socket, for running a route's pipeline in-process
 * (http/dispatch.ts): what route handlers use of node:http's objects (headers, method, url,
 * the body as a stream) and of Express's additions (`params`, `query`; `status`, `set`,
 * `type` on the response). The answer comes out as a fetch `Response` whose body streams
 * what the handler writes, as it writes it (exec events, file bytes), with back-pressure.
 */
export class InProcessRequest extends Readable {
  readonly httpVersion = '1.1';
  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: IncomingHttpHeaders,
    readonly params: Record<string, string>,
    readonly query: Record<string, string>,
    body: Uint8Array | undefined,
  ) {
    super();
    if (body?.length) this.push(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    this.push(null);
  }

  get originalUrl() {
    return this.url;
  }

  override _read() {}
}

type HeaderValue = string | number | readonly string[];

export class InProcessResponse extends Writable {
  statusCode = 200;
  statusMessage = '';
  headersSent = false;
  /** The answer, once its head is out (first write, end, writeHead or flushHeaders). */
  readonly response: Promise<Response>;
  private readonly headers = new Map<string, HeaderValue>();
  private resolve!: (r: Response) => void;
  private reject!: (e: Error) => void;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private readonly body: ReadableStream<Uint8Array>;
  private wantMore: (() => void) | undefined;

  constructor() {
    super();
    // A failed pipe into the answer destroys it with an error, which the reader gets.
    this.on('error', () => {});
    this.response = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (c) => void (this.controller = c),
        pull: () => {
          const go = this.wantMore;
          this.wantMore = undefined;
          go?.();
        },
        // The reader went away (a tool call aborted): the handler sees its response close.
        cancel: () => void this.destroy(),
      },
      new CountQueuingStrategy({ highWaterMark: 16 }),
    );
  }

  setHeader(name: string, value: HeaderValue): this {
    if (this.headersSent) throw new Error(`Cannot set header ${name} after the answer's head is out`);
    this.headers.set(name.toLowerCase(), value);
    return this;
  }
  getHeader(name: string) {
    return this.headers.get(name.toLowerCase());
  }
  getHeaders() {
    return Object.fromEntries(this.headers);
  }
  hasHeader(name: string) {
    return this.headers.has(name.toLowerCase());
  }
  removeHeader(name: string) {
    this.headers.delete(name.toLowerCase());
  }
  writeHead(status: number, a?: string | Record<string, HeaderValue>, b?: Record<string, HeaderValue>): this {
    this.statusCode = status;
    const headers = typeof a === 'object' ? a : b;
    for (const k in headers) this.setHeader(k, headers[k]!);
    this.flushHeaders();
    return this;
  }
  flushHeaders() {
    if (this.headersSent) return;
    this.headersSent = true;
    const h = new Headers();
    for (const [k, v] of this.headers) for (const one of Array.isArray(v) ? v : [v]) h.append(k, String(one));
    const empty = this.statusCode === 204 || this.statusCode === 304;
    this.resolve(new Response(empty ? null : this.body, { status: this.statusCode, headers: h }));
  }

  // Express's additions that route handlers use (files-routes.ts, listing-stream.ts).
  status(code: number): this {
    this.statusCode = code;
    return this;
  }
  set(field: string | Record<string, string>, value?: string): this {
    if (typeof field === 'string') return this.setHeader(field, value ?? '');
    for (const k in field) this.setHeader(k, field[k]!);
    return this;
  }
  type(t: string): this {
    return this.setHeader('content-type', t.includes('/') ? t : `application/${t}`);
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (e?: Error | null) => void) {
    this.flushHeaders();
    if (chunk.length) this.controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if ((this.controller.desiredSize ?? 1) > 0) done();
    else this.wantMore = () => done();
  }

  override _final(done: (e?: Error | null) => void) {
    this.flushHeaders();
    this.controller.close();
    done();
  }

  override _destroy(err: Error | null, done: (e?: Error | null) => void) {
    // The Error only when there is somebody to tell: a finished answer is destroyed too (autoDestroy).
    const why = () => err ?? new Error('The answer was cut off.');
    if (!this.headersSent) this.reject(why());
    else if (!this.writableFinished) {
      try {
        this.controller.error(why());
      } catch {
        // the reader already cancelled
      }
    }
    this.wantMore?.();
    done(err);
  }
}
