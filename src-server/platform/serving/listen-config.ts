import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import { givenCert, madeCert, type ServingCert } from './serving-tls.js';

/**
 * Where and how the API is served (`--listen`, `--tls-cert`/`--tls-key`, `--tls`,
 * `--allowed-hosts`; BOX_LISTEN, BOX_TLS_CERT, BOX_TLS_KEY, BOX_ALLOWED_HOSTS):
 *
 * - loopback (the default, 127.0.0.1): plain HTTP, unless TLS is asked for;
 * - any other address: TLS always, with the operator's certificate or one the service makes
 *   from its own serving CA (serving-tls.ts). There is no way to serve plain HTTP beyond
 *   loopback.
 *
 * The Host check (http/guard.ts) stays on: loopback names, plus the listen address (or, on
 * a wildcard address, this machine's addresses and host name), plus BOX_ALLOWED_HOSTS.
 */
interface ServingNetwork {
  host: string;
  tls?: ServingCert;
  /** Host names (lower case, no port) accepted besides loopback ones; `*.example.com` matches one level or more. */
  allowedHosts: string[];
}

interface ServingOptions {
  dataDir: string;
  host: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** TLS with a made certificate even on loopback (benches, tests). */
  tls?: boolean;
  allowedHosts?: string[];
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i;
export const isLoopback = (host: string) => LOOPBACK.test(host.replace(/^\[|\]$/g, ''));
const isWildcard = (host: string) => host === '0.0.0.0' || host === '::' || host === '[::]';

/** `host`, `host:port`, `[v6]:port` or `[v6]`: the host and the port, if given. */
export function parseListen(value: string): { host: string; port?: number } {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(value) ?? /^([^:]+)(?::(\d+))?$/.exec(value);
  if (!m) {
    if (/^[0-9a-f:]+$/i.test(value) && value.includes('::')) return { host: value }; // a bare IPv6 address
    throw new Error(`--listen "${value}": expected an address (10.0.0.5), an address and port (10.0.0.5:8443) or [v6]:port`);
  }
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (port !== undefined && (port < 0 || port > 65535)) throw new Error(`--listen "${value}": the port must be 0-65535`);
  return { host: m[1]!, port };
}

function machineNames(): string[] {
  const out = [os.hostname()];
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) if (!a.internal) out.push(a.address);
  return out;
}

export async function servingNetwork(o: ServingOptions): Promise<ServingNetwork> {
  const host = o.host.replace(/^\[|\]$/g, '');
  const extra = (o.allowedHosts ?? []).map((h) => h.trim().toLowerCase()).filter(Boolean);
  const own = isLoopback(host) ? [] : isWildcard(host) ? machineNames() : [host];
  const allowedHosts = [...new Set([...own.map((h) => h.toLowerCase()), ...extra])];
  if (Boolean(o.tlsCertFile) !== Boolean(o.tlsKeyFile)) throw new Error('--tls-cert and --tls-key go together (a certificate and its private key, PEM)');
  const wantTls = !isLoopback(host) || o.tls || Boolean(o.tlsCertFile);
  if (!wantTls) return { host, allowedHosts };
  const tls = o.tlsCertFile
    ? givenCert(o.tlsCertFile, o.tlsKeyFile!)
    : await madeCert(o.dataDir, ['localhost', '127.0.0.1', ...allowedHosts.filter((h) => !h.startsWith('*.'))]);
  return { host, tls, allowedHosts };
}

/** Whether a Host header's name is served: a loopback name, or one of `allowed`. */
export function hostAllowed(hostHeader: string, allowed: readonly string[]): boolean {
  const name = hostHeader
    .toLowerCase()
    .replace(/:\d+$/, '')
    .replace(/^\[|\]$/g, '');
  if (/^(127\.0\.0\.1|localhost|::1|([a-z0-9-]+\.)+localhost)$/.test(name)) return true;
  return allowed.some((a) => a === name || (a.startsWith('*.') && name.endsWith(a.slice(1)) && name.length > a.length - 1));
}

/** An HTTP server, or an HTTPS one with the serving certificate. */
export function createServer(tls: ServingCert | undefined, listener: http.RequestListener): http.Server {
  return tls ? https.createServer({ cert: tls.cert, key: tls.key }, listener) : http.createServer(listener);
}

/** The base URL of a server listening on `host:port` (a wildcard address is reached on loopback). */
export function baseUrlOf(tls: ServingCert | undefined, host: string, port: number): string {
  const h = isWildcard(host) ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `${tls ? 'https' : 'http'}://${h}:${port}`;
}
