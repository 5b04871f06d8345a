import http2 from 'node:http2';
import type net from 'node:net';
import tls from 'node:tls';

/** How long making an upstream connection may take (the proxy's legs share it). */
export const CONNECT_TIMEOUT_MS = 15_000;

/** How long an origin that did not choose `h2` in ALPN is sent HTTP/1.1 without asking again. */
const H1_REMEMBER_MS = 10 * 60_000;
/** An idle upstream session is closed after this long. */
const IDLE_MS = 60_000;
/**
 * Flow-control windows of an upstream session: HTTP/2's default (64 KiB) would cap a large
 * download at one window per round trip; backpressure still holds (a paused stream stops
 * returning window, so the origin stops sending).
 */
const STREAM_WINDOW = 4 * 1024 * 1024;
const SESSION_WINDOW = 16 * 1024 * 1024;

type Waiter = (e: Error | null, s: http2.ClientHttp2Session | null) => void;
type Entry = { kind: 'h2'; session: http2.ClientHttp2Session } | { kind: 'h1'; until: number } | { kind: 'pending'; waiters: Waiter[] };

/**
 * HTTP/2 sessions to HTTPS origins, one per box and target (host:port), for origins that
 * choose `h2` in ALPN: every HTTP/2 request of that box to that origin (forward-core.ts: the
 * upstream leg speaks what the box's leg speaks; gRPC needs HTTP/2 end to end) is a stream
 * on one verified TLS connection. An origin that answers ALPN with `http/1.1` (or nothing)
 * is remembered for a while and served by the HTTP/1.1 keep-alive pool (upstream-h1.ts)
 * instead. HTTP/1.1 requests always take that pool: since the proxy's own HTTP/1.1 client
 * and its slab reads, it costs less per request and per byte than Node's HTTP/2 client.
 */
export class UpstreamSessions {
  private entries = new Map<string, Entry>();

  /**
   * Calls `cb` with the live session for `key`, with null when the origin speaks HTTP/1.1
   * only (use the h1 agent), or with the connection's error (certificate refused,
   * unreachable): the caller answers that error exactly as for HTTP/1.1. `connect` holds
   * the verified TLS options (roots, servername, rejectUnauthorized, the loopback guard).
   */
  get(key: string, connect: tls.ConnectionOptions & { host: string; port: number; lookup?: net.LookupFunction }, cb: Waiter): void {
    const known = this.known(key);
    if (known !== undefined) return cb(null, known);
    const e = this.entries.get(key);
    if (e?.kind === 'pending') return void e.waiters.push(cb);
    const waiters: Waiter[] = [cb];
    this.entries.set(key, { kind: 'pending', waiters });
    const settle = (err: Error | null, s: http2.ClientHttp2Session | null) => {
      for (const w of waiters.splice(0)) w(err, s);
    };
    const socket = tls.connect({ ...connect, ALPNProtocols: ['h2', 'http/1.1'] });
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => socket.destroy(new Error('the upstream did not answer in time')));
    socket.once('error', (err) => {
      if (this.entries.get(key)?.kind === 'pending') this.entries.delete(key);
      settle(err, null);
    });
    socket.once('secureConnect', () => {
      socket.setTimeout(0);
      // Streams share this connection: without it Nagle holds a stream's small frame until
      // the peer ACKs the previous one (a delayed ACK: tens of ms).
      socket.setNoDelay(true);
      if (socket.alpnProtocol !== 'h2') {
        socket.destroy();
        this.entries.set(key, { kind: 'h1', until: Date.now() + H1_REMEMBER_MS });
        return settle(null, null);
      }
      const session = http2.connect(`https://${connect.servername ?? connect.host}:${connect.port}`, {
        createConnection: () => socket,
        settings: { initialWindowSize: STREAM_WINDOW, enablePush: false },
      });
      session.once('connect', () => session.setLocalWindowSize(SESSION_WINDOW));
      session.on('error', () => {});
      const drop = () => {
        const cur = this.entries.get(key);
        if (cur?.kind === 'h2' && cur.session === session) this.entries.delete(key);
      };
      session.once('close', drop);
      session.once('goaway', drop);
      session.setTimeout(IDLE_MS, () => session.close());
      // Idle sessions never keep the process alive.
      session.unref();
      this.entries.set(key, { kind: 'h2', session });
      settle(null, session);
    });
  }

  /** What `get` would answer at once: the live session, null for an HTTP/1.1 origin, undefined when a connection is needed first. */
  known(key: string): http2.ClientHttp2Session | null | undefined {
    const e = this.entries.get(key);
    if (e?.kind === 'h2' && !e.session.closed && !e.session.destroyed) return e.session;
    if (e?.kind === 'h1' && e.until > Date.now()) return null;
    return undefined;
  }

  /** Closes the sessions whose key starts with `prefix` (a box's proxy closing: `boxId + ' '`). */
  close(prefix = ''): void {
    for (const [k, e] of this.entries) {
      if (!k.startsWith(prefix)) continue;
      if (e.kind === 'h2') e.session.destroy();
      this.entries.delete(k);
    }
  }
}

/** Headers HTTP/2 forbids (RFC 9113 §8.2.2); endToEnd drops most, Host becomes :authority. */
const H1_ONLY = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'http2-settings', 'te']);

/** One request as a stream of `session`: the same end-to-end headers (secrets already injected) the HTTP/1.1 path sends. */
export function requestH2(session: http2.ClientHttp2Session, method: string, pathAndQuery: string, headers: Record<string, unknown>, endStream: boolean) {
  const h: http2.OutgoingHttpHeaders = { ':method': method, ':path': pathAndQuery, ':authority': String(headers.host), ':scheme': 'https' };
  for (const [k, v] of Object.entries(headers)) if (!H1_ONLY.has(k) && v !== undefined) h[k] = v as string | string[] | number;
  return session.request(h, { endStream });
}
