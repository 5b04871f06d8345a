import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { UpstreamPool } from './upstream-h1.js';
import { UpstreamSessions } from './upstream-h2.js';

/** OpenSSL verification failures (and Node's host name check): the upstream is not who it claims, or not provably. */
const VERIFY_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_SIGNATURE_FAILURE',
  'HOSTNAME_MISMATCH',
]);

/** The proxy's answer text when `e` is a failed upstream certificate check; undefined for other errors. */
export function upstreamTlsProblem(e: Error, host: string): string | undefined {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  if (!VERIFY_CODES.has(code)) return undefined;
  return (
    `The box egress proxy refused ${host}: its TLS certificate failed verification (${code}: ${e.message}). ` +
    'Trusted are the system roots and the PEM bundle named by BOX_EGRESS_CA_FILE on the host; the connection was not made.\n'
  );
}

/**
 * The roots upstream TLS is verified against: Node's bundled Mozilla store (what Debian's
 * ca-certificates ships) plus the PEM bundle named by BOX_EGRESS_CA_FILE, when set. Passing
 * `ca` replaces Node's default list, hence the explicit concatenation. Undefined when there
 * is no extra file (Node's defaults apply). A file that cannot be read is an error at start.
 */
export function upstreamRoots(file: string | undefined): string[] | undefined {
  if (!file) return undefined;
  const extra = fs.readFileSync(file, 'utf8');
  if (!/-----BEGIN CERTIFICATE-----/.test(extra)) throw new Error(`BOX_EGRESS_CA_FILE=${file} holds no PEM certificate`);
  return [...tls.rootCertificates, extra];
}

/**
 * Kept-alive HTTP/1.1 upstream connections shared by a service's proxies (a warm request
 * reuses its connection), and the HTTP/2 sessions (one per box and origin) for origins that
 * offer h2.
 */
export function upstreamAgents() {
  return { h1: new UpstreamPool(), h2: new UpstreamSessions() };
}

/**
 * Cipher order of both legs of an intercepted request: TLS 1.3 suites with AES-128-GCM first
 * (as sound as AES-256-GCM, Node's default first choice, and cheaper per byte; both legs are
 * the proxy's CPU), then Node's default TLS 1.2 suites. Nothing weaker is added.
 */
export const AES128_FIRST_CIPHERS = [
  'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256',
  ...tls.DEFAULT_CIPHERS.split(':').filter((c) => !c.startsWith('TLS_')),
].join(':');

/**
 * Box-leg order for guests without AES instructions (the TCG CPU model): ChaCha20 first. In
 * such a box the guest's software AES is the slowest party of a download (docs/benchmarks-
 * history.md, "Wave 4 (issue 11, 2026-11-24 00:55-02:00 UTC)": 100 MB by curl in a box, medians: ChaCha20 11.6 MB/s, AES-128-GCM 7.7, AES-256-GCM 7.7).
 */
export const CHACHA20_FIRST_CIPHERS = AES128_FIRST_CIPHERS.replace(
  'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256',
  'TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384',
);

const contexts = new WeakMap<object, tls.SecureContext>();
/**
 * Upstream TLS options for a proxy: one secure context holding the roots and the cipher
 * order (built once per
 * deps object; passing `ca` per request would rebuild it and make a 200 KB agent key).
 */
export function upstreamTls(deps: { tlsCa?: string | Buffer }, servername: string): tls.ConnectionOptions {
  let ctx = contexts.get(deps);
  // Without `ca`, a context trusts Node's bundled roots, as a connection without one would.
  if (!ctx) contexts.set(deps, (ctx = tls.createSecureContext({ ciphers: AES128_FIRST_CIPHERS, ...(deps.tlsCa ? { ca: deps.tlsCa } : {}) })));
  return { ...(net.isIP(servername) ? {} : { servername }), rejectUnauthorized: true, secureContext: ctx };
}
