import http from 'node:http';
import type net from 'node:net';
import type { Readable } from 'node:stream';
import type tls from 'node:tls';
import { ChunkedDecoder, framingOf, parseHead, reusable, type Framing, type H1Head } from './h1-body.js';

/**
 * The proxy's HTTP/1.1 client to upstreams. Node's http client copies every body piece it
 * parses into a new Buffer and queues it in a stream; on a download through the proxy that
 * doubled the proxy's allocations and set V8 marking its old space over and over (profile in
 * docs/benchmarks-history.md, "Wave 5 (issue 11, 2026-11-24): the proxy's own HTTP/1.1 upstream
 * client"). Here the request head is written once, the response head parsed
 * once (h1-body.ts), and the body is handed on as slices of what the socket read, with its
 * end found from Content-Length or the chunked framing. Connections are kept alive in a pool.
 */

/** Idle kept-alive connections per pool key (box + origin), and how long one may idle. */
const MAX_IDLE = 16;
const IDLE_MS = 60_000;
/** A response head larger than this is refused (Node's default limit is 16 KiB). */
const MAX_HEAD = 64 * 1024;

type Conn = net.Socket | tls.TLSSocket;

/** Kept-alive upstream connections by key (`boxId host port`); a key's connections are one origin's. */
export class UpstreamPool {
  private idle = new Map<string, Map<Conn, () => void>>();

  /** A live idle connection for `key`, taken out of the pool. */
  take(key: string): Conn | undefined {
    const set = this.idle.get(key);
    for (const [s, drop] of set ?? []) {
      set!.delete(s);
      s.off('close', drop).off('error', drop).off('data', drop).off('timeout', drop);
      s.ref();
      if (!s.destroyed && s.readyState === 'open') return s;
      s.destroy();
    }
    return undefined;
  }

  /** Keeps `s` for the next request to `key` (or closes it when the pool for `key` is full). */
  give(key: string, s: Conn): void {
    let set = this.idle.get(key);
    if (!set) this.idle.set(key, (set = new Map()));
    if (set.size >= MAX_IDLE || s.destroyed) return void s.destroy();
    // An idle connection that closes, fails, times out or says anything is dropped.
    const drop = () => {
      set.delete(s);
      if (!set.size && this.idle.get(key) === set) this.idle.delete(key);
      s.destroy();
    };
    set.set(s, drop);
    s.on('close', drop).on('error', drop).on('data', drop).on('timeout', drop);
    s.setTimeout(IDLE_MS);
    s.resume(); // reading, so that the origin closing it is seen
    s.unref();
  }

  /** Closes the idle connections whose key starts with `prefix` (a box's proxy closing: `boxId + ' '`). */
  close(prefix = ''): void {
    for (const [k, set] of this.idle) {
      if (!k.startsWith(prefix)) continue;
      for (const sock of set.keys()) sock.destroy();
      this.idle.delete(k);
    }
  }
}

/**
 * What the caller does with the answer; `data` returning false pauses the upstream until
 * `resume`. A connection made by `connectShared` (read-slab.ts) hands `data` a view of its
 * shared read buffer: valid during the call only, copied (`keepCopy`) by what keeps it.
 */
interface H1Hooks {
  response(head: H1Head): void;
  data(chunk: Buffer): boolean;
  end(): void;
  error(e: Error): void;
}

interface H1Request {
  method: string;
  path: string;
  headers: http.OutgoingHttpHeaders;
  /** Whether a body follows: by its Content-Length, or chunked when its length is not known. */
  body: 'none' | 'length' | 'chunked';
  /** The body (the box's request), streamed with backpressure; `sent` counts its bytes. */
  source?: Readable;
  sent?: (n: number) => void;
  timeoutMs: number;
}

/**
 * One exchange on a pooled connection (or a new one from `connect`): the head is written,
 * the body streamed from `r.source`, the answer handed to `hooks`. Returns `resume` (after
 * `hooks.data` answered false) and `cancel`.
 */
export function exchangeH1(pool: UpstreamPool | undefined, key: string, connect: () => Conn, r: H1Request, hooks: H1Hooks) {
  // The head first: a header that cannot be sent (a line break in a secret) opens no connection.
  let text = `${r.method} ${r.path} HTTP/1.1\r\n`;
  try {
    for (const [k, v] of Object.entries(r.headers)) {
      if (v === undefined) continue;
      http.validateHeaderName(k);
      for (const one of Array.isArray(v) ? v : [String(v)]) {
        http.validateHeaderValue(k, one);
        text += `${k}: ${one}\r\n`;
      }
    }
  } catch (e) {
    r.source?.resume();
    queueMicrotask(() => hooks.error(e as Error));
    return { resume() {}, cancel() {} };
  }
  const s = pool?.take(key) ?? connect();
  let head = '';
  let resHead: H1Head | undefined;
  let framing: Framing | undefined;
  let chunked: ChunkedDecoder | undefined;
  let finished = false;
  let failed = false;
  let requestDone = r.body === 'none';
  let keep = false;

  function fail(e: Error) {
    if (finished || failed) return;
    failed = true;
    s.destroy();
    hooks.error(e);
  }
  const done = (extra: number) => {
    finished = true;
    detach();
    // Reused only when the answer ended exactly at the read's end and the request was all sent.
    if (pool && keep && extra === 0 && requestDone && !s.destroyed) pool.give(key, s);
    else s.on('error', () => {}).destroy();
    hooks.end();
  };
  const body = (b: Buffer) => {
    const f = framing!;
    if (f.kind === 'length') {
      const n = Math.min(f.left, b.length);
      f.left -= n;
      if (n && !hooks.data(n === b.length ? b : b.subarray(0, n))) s.pause();
      if (f.left === 0) done(b.length - n);
    } else if (f.kind === 'chunked') {
      let paused = false;
      chunked ??= new ChunkedDecoder((c) => {
        if (!hooks.data(c)) paused = true;
      });
      const used = chunked.push(b);
      if (paused) s.pause();
      if (used >= 0) done(b.length - used);
    } else if (b.length && !hooks.data(b)) s.pause();
  };
  function onData(b: Buffer) {
    try {
      if (framing) return body(b);
      head += b.toString('latin1');
      for (;;) {
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) {
          if (head.length > MAX_HEAD) throw new Error('the upstream sent an over-long response head');
          return;
        }
        const h = parseHead(head.slice(0, end));
        const rest = Buffer.from(head.slice(end + 4), 'latin1');
        head = '';
        if (h.status >= 100 && h.status < 200) {
          if (h.status === 101) throw new Error('the upstream switched protocols on a plain request');
          head = rest.toString('latin1'); // an interim answer (100 Continue): the final one follows
          continue;
        }
        resHead = h;
        framing = framingOf(r.method, h);
        keep = reusable(h) && framing.kind !== 'close';
        hooks.response(h);
        if (framing.kind === 'none') return done(rest.length);
        // Body bytes that came with the head: `rest` re-encodes the latin1 text, the rest of `b` is the same bytes.
        if (rest.length) body(b.subarray(b.length - rest.length));
        return;
      }
    } catch (e) {
      fail(e as Error);
    }
  }
  const onEnd = () => {
    if (framing?.kind === 'close' && !finished) done(0);
  };
  const onClose = () => {
    if (!finished) fail(new Error(resHead ? 'the upstream closed the connection mid-answer' : 'the upstream closed the connection before answering'));
  };
  const onTimeout = () => fail(new Error('the upstream did not answer in time'));
  const write = (c: Buffer): boolean => {
    r.sent?.(c.length);
    if (r.body !== 'chunked') return s.write(c);
    if (!c.length) return true;
    s.cork();
    s.write(`${c.length.toString(16)}\r\n`);
    s.write(c);
    const ok = s.write('\r\n');
    s.uncork();
    return ok;
  };
  const onSourceData = (c: Buffer) => {
    if (!write(c)) r.source!.pause();
  };
  const onDrain = () => r.source?.resume();
  const onSourceEnd = () => {
    if (r.body === 'chunked') s.write('0\r\n\r\n');
    requestDone = true;
    r.source?.off('data', onSourceData);
    s.off('drain', onDrain);
  };
  /** Takes this exchange's listeners off the connection (it may serve the next request). */
  function detach() {
    s.off('data', onData).off('error', fail).off('end', onEnd).off('close', onClose).off('timeout', onTimeout).off('drain', onDrain);
    r.source?.off('data', onSourceData).off('end', onSourceEnd);
    if (!requestDone) r.source?.resume(); // the rest of a body nobody reads any more is drained
    s.setTimeout(0);
  }
  s.on('data', onData).on('error', fail).on('end', onEnd).on('close', onClose).on('timeout', onTimeout);
  s.setTimeout(r.timeoutMs);
  s.resume();

  if (r.body === 'chunked') text += 'transfer-encoding: chunked\r\n';
  s.write(text + '\r\n');
  if (r.body !== 'none' && r.source) {
    s.on('drain', onDrain);
    r.source.on('data', onSourceData).on('end', onSourceEnd);
  } else {
    r.source?.resume(); // nothing to send (a GET): drained so that the box's request ends
  }
  return {
    resume: () => s.resume(),
    /** Abandons the exchange (the box went away): the connection is closed, never reused. */
    cancel() {
      finished = true;
      detach();
      s.on('error', () => {}).destroy();
    },
  };
}
