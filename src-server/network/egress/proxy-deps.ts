import type { GatewayAuth } from './gateway-auth.js';
import { STATUS_CODES } from 'node:http';
import type tls from 'node:tls';
import type { EgressLogEntry } from '../../contract/network.js';
import type { PolicyRef } from './decide.js';
import type { TargetResolver } from './upstream.js';
import type { UpstreamPool } from './upstream-h1.js';
import type { UpstreamSessions } from './upstream-h2.js';

/** What the proxy needs from the rest of the service; tests pass stand-ins. */
export interface ProxyDeps {
  /** Looked up per request, so attaching, detaching or editing a policy applies at once. */
  policyFor(boxId: string): Promise<PolicyRef | null>;
  /** A secret of the box's organization, or undefined when it does not exist. Read on the host only. */
  secretFor(boxId: string, name: string): Promise<string | undefined>;
  log: {
    add(boxId: string, e: EgressLogEntry): number;
    /** A finished request's entry, written in the background (default: add). */
    record?(boxId: string, e: EgressLogEntry): void;
    finish(id: number, f: { status?: number | null; bytes_out: number; bytes_in: number; duration_ms?: number }): void;
  };
  /** Where a requested host:port really connects (default: host.box.internal → 127.0.0.1). */
  resolve?: TargetResolver;
  /** Extra CA certificates trusted for upstream TLS (tests, corporate roots); the system roots otherwise. */
  tlsCa?: string | Buffer;
  /**
   * Kept-alive HTTP/1.1 upstream connections (default: a fresh connection per request); with
   * `h2`, HTTPS origins that choose h2 in ALPN get a session per box and origin instead
   * (upstream-h2.ts).
   */
  agents?: { h1: UpstreamPool; h2?: UpstreamSessions };
  /**
   * The install's egress CA: when present, https to hosts an attached policy governs is
   * intercepted (see contract/policies.ts, TLS_MODES); absent, CONNECT is host-level only.
   */
  ca?: { contextFor(host: string): Promise<{ key: string; cert: string; context: tls.SecureContext }> };
  /** In-box inference: requests to the local gateway are authenticated as the box (gateway-auth.ts). */
  gateway?: GatewayAuth;
  /**
   * The boxes' CPUs have no AES instructions (TCG's CPU model): the box leg of intercepted
   * TLS prefers ChaCha20, which such a guest runs ~1.5x faster than AES-GCM. Read when
   * a box's interception server is made (servers are rebuilt when it changes).
   */
  boxLegChaCha?: boolean;
  /** Idle time after which an upstream connection is dropped (default 5 minutes). */
  idleTimeoutMs?: number;
  onError?(where: string, e: unknown): void;
}

export const DEFAULT_IDLE_MS = 5 * 60_000;
export { CONNECT_TIMEOUT_MS } from './upstream-h2.js';

/** A plain-text answer of the proxy itself; always closes the connection. */
export function rawReply(socket: { write(s: string | Buffer): unknown; end(): unknown }, status: number, body: string) {
  const text = Buffer.from(body, 'utf8');
  const reason = STATUS_CODES[status] ?? 'Proxy Response';
  socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${text.length}\r\nConnection: close\r\n\r\n`);
  socket.write(text);
  socket.end();
  return text.length;
}

export const nowIso = () => new Date().toISOString();

/** A request the proxy could not decide (the store failed): logged, and the connection closed. */
export function failed(deps: Pick<ProxyDeps, 'onError'>, conn: { destroy(): unknown }, e: unknown): void {
  deps.onError?.('egress request', e);
  conn.destroy();
}
