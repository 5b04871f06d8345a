import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
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
export function upstreamRoots(file = process.env.BOX_EGRESS_CA_FILE): string[] | undefined {
  if (!file) return undefined;
  const extra = fs.readFileSync(file, 'utf8');
  if (!/-----BEGIN CERTIFICATE-----/.test(extra)) throw new Error(`BOX_EGRESS_CA_FILE=${file} holds no PEM certificate`);
  return [...tls.rootCertificates, extra];
}

/**
 * Keep-alive upstream pools shared by a service's proxies (a warm request reuses its
 * connection), and the HTTP/2 sessions (one per box and origin) for origins that offer h2.
 */
export function upstreamAgents() {
  return {
    h2: new UpstreamSessions(),
    http: new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: 60_000, noDelay: true }),
    https: new https.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: 60_000, noDelay: true }),
  };
}

const contexts = new WeakMap<object, tls.SecureContext | null>();
/**
 * Upstream TLS options for a proxy: one secure context holding the roots (built once per
 * deps object; passing `ca` per request would rebuild it and make a 200 KB agent key).
 */
export function upstreamTls(deps: { tlsCa?: string | Buffer }, servername: string): tls.ConnectionOptions {
  let ctx = contexts.get(deps);
  if (ctx === undefined) contexts.set(deps, (ctx = deps.tlsCa ? tls.createSecureContext({ ca: deps.tlsCa }) : null));
  return { ...(net.isIP(servername) ? {} : { servername }), rejectUnauthorized: true, ...(ctx ? { secureContext: ctx } : {}) };
}
