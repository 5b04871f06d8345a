import type http from 'node:http';

/**
 * The parts of an HTTP/1.1 response the proxy's own upstream client needs (upstream-h1.ts):
 * the head, parsed once, and the body's framing, walked over the socket's raw bytes so
 * that body bytes reach the box as slices of what the socket read (no copy, no stream).
 */

/** Node keeps the first of these when a response repeats them (RFC 9110 field rules). */
const SINGLE = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

export interface H1Head {
  status: number;
  reason: string;
  minor: number;
  headers: http.IncomingHttpHeaders;
}

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/;
const FIELD = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;

/** Parses a response head (the bytes before the blank line); throws on anything malformed. */
export function parseHead(text: string): H1Head {
  const lines = text.split('\r\n');
  const m = STATUS_LINE.exec(lines[0]!);
  if (!m) throw new Error('the upstream sent a malformed HTTP/1.1 status line');
  const headers: http.IncomingHttpHeaders = {};
  const h = headers as Record<string, string | string[]>;
  for (let i = 1; i < lines.length; i++) {
    const f = FIELD.exec(lines[i]!);
    if (!f) throw new Error('the upstream sent a malformed header line');
    const k = f[1]!.toLowerCase();
    const v = f[2]!;
    const cur = h[k];
    if (k === 'set-cookie') h[k] = cur ? [...(cur as string[]), v] : [v];
    else if (cur === undefined) h[k] = v;
    else if (!SINGLE.has(k)) h[k] = `${cur as string}, ${v}`;
  }
  return { status: Number(m[2]), reason: m[3] ?? '', minor: Number(m[1]), headers };
}

/** How the body of a response ends (RFC 9112 §6.3); `length` for a Content-Length body. */
export type Framing = { kind: 'none' } | { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'close' };

export function framingOf(method: string, head: H1Head): Framing {
  if (method === 'HEAD' || head.status === 204 || head.status === 304) return { kind: 'none' };
  const te = head.headers['transfer-encoding'];
  if (te !== undefined) return /(?:^|,)\s*chunked\s*$/i.test(te) ? { kind: 'chunked' } : { kind: 'close' };
  const cl = head.headers['content-length'];
  if (cl === undefined) return { kind: 'close' };
  if (!/^\d{1,15}$/.test(cl)) throw new Error(`the upstream sent an invalid Content-Length (${cl})`);
  return Number(cl) === 0 ? { kind: 'none' } : { kind: 'length', left: Number(cl) };
}

/** The connection may carry another request after this response. */
export function reusable(head: H1Head): boolean {
  const c = String(head.headers.connection ?? '').toLowerCase();
  return head.minor === 1 ? !/\bclose\b/.test(c) : /\bkeep-alive\b/.test(c);
}

/**
 * A chunked body decoder over raw socket chunks: `push` hands each piece of chunk data to
 * `emit` as a subarray of the input, and returns how many input bytes were consumed when
 * the body (trailers included) ended, else -1.
 */
export class ChunkedDecoder {
  private state: 'size' | 'data' | 'data-crlf' | 'trailer' = 'size';
  private left = 0;
  private line = '';

  constructor(private emit: (b: Buffer) => void) {}

  push(b: Buffer): number {
    let i = 0;
    while (i < b.length) {
      if (this.state === 'data') {
        const n = Math.min(this.left, b.length - i);
        this.emit(b.subarray(i, i + n));
        i += n;
        this.left -= n;
        if (this.left === 0) this.state = 'data-crlf';
        continue;
      }
      const nl = b.indexOf(10, i);
      const end = nl < 0 ? b.length : nl + 1;
      this.line += b.toString('latin1', i, end);
      i = end;
      if (this.line.length > 8192) throw new Error('the upstream sent an over-long chunk line');
      if (nl < 0) break;
      const line = this.line.replace(/\r?\n$/, '');
      this.line = '';
      if (this.state === 'data-crlf') {
        if (line !== '') throw new Error('the upstream sent a malformed chunk');
        this.state = 'size';
      } else if (this.state === 'size') {
        const m = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(line);
        if (!m) throw new Error('the upstream sent a malformed chunk size');
        this.left = parseInt(m[1]!, 16);
        this.state = this.left === 0 ? 'trailer' : 'data';
      } else if (line === '') {
        return i; // the blank line after the (ignored) trailers
      }
    }
    return -1;
  }
}
