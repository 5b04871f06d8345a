import type http from 'node:http';
import http2 from 'node:http2';
import crypto from 'node:crypto';
import type { Duplex } from 'node:stream';
import { forwardTo, type ForwardTarget } from './forward-core.js';
import { failed, rawReply, type ProxyDeps } from './proxy-deps.js';
import { forwardUpgrade } from './upgrade.js';
import { AES128_FIRST_CIPHERS, CHACHA20_FIRST_CIPHERS } from './upstream-tls.js';

/**
 * The box's leg, by the server's order: AES-128-GCM first (upstream-tls.ts says why), except
 * for a client that lists ChaCha20 first (one without AES instructions), which gets ChaCha20;
 * ChaCha20 first for everyone when the deps say the boxes' CPUs lack AES (`boxLegChaCha`).
 */
const boxLegCiphers = (chacha: boolean) => ({
  ciphers: chacha ? CHACHA20_FIRST_CIPHERS : AES128_FIRST_CIPHERS,
  honorCipherOrder: true,
  secureOptions: crypto.constants.SSL_OP_PRIORITIZE_CHACHA,
});

type Leaf = Awaited<ReturnType<NonNullable<ProxyDeps['ca']>['contextFor']>>;

/** Interception servers kept per proxy deps (least recently used dropped beyond this). */
const MAX_SERVERS = 512;
const servers = new WeakMap<ProxyDeps, Map<string, { leaf: Leaf; chacha: boolean; server: http2.Http2SecureServer }>>();

/**
 * The TLS + HTTP server for tunnels of one box to one host:port, made once and reused by
 * every tunnel to that target (a new server builds an OpenSSL context from the leaf's PEMs,
 * which cost more than the rest of a new tunnel). Rebuilt when the leaf changes (refresh,
 * CA rotation). Node's HTTP/2 secure server with allowHTTP1 does the TLS and the ALPN
 * choice: HTTP/2 when the client offers `h2`, else HTTP/1.1 with keep-alive and upgrades.
 */
function serverFor(deps: ProxyDeps, boxId: string, host: string, port: number, leaf: Leaf): http2.Http2SecureServer {
  let byTarget = servers.get(deps);
  if (!byTarget) servers.set(deps, (byTarget = new Map()));
  const key = `${boxId} ${host} ${port}`;
  const hit = byTarget.get(key);
  const chacha = !!deps.boxLegChaCha;
  if (hit && hit.leaf === leaf && hit.chacha === chacha) {
    byTarget.delete(key);
    byTarget.set(key, hit);
    return hit.server;
  }
  const target = (pathAndQuery: string | undefined): ForwardTarget => ({ scheme: 'https', host, port, pathAndQuery: pathAndQuery || '/' });
  const server = http2.createSecureServer(
    { allowHTTP1: true, key: leaf.key, cert: leaf.cert, SNICallback: (_n, cb) => cb(null, leaf.context), ...boxLegCiphers(chacha) },
    (req, res) => void forwardTo(deps, boxId, req, res, target(req.url)).catch((e) => failed(deps, res, e)),
  );
  server.on(
    'upgrade',
    (req: http.IncomingMessage, socket: Duplex, h: Buffer) =>
      void forwardUpgrade(deps, boxId, req, socket, h, target(req.url)).catch((e) => failed(deps, socket, e)),
  );
  server.on('sessionError', (_e, session: http2.ServerHttp2Session) => session.destroy());
  server.on('tlsClientError', (_e, socket: Duplex) => socket.destroy());
  byTarget.set(key, { leaf, chacha, server });
  if (byTarget.size > MAX_SERVERS) byTarget.delete(byTarget.keys().next().value!);
  return server;
}

/**
 * TLS interception of one CONNECT tunnel: the proxy answers 200, terminates the box's TLS
 * with a leaf for `host` signed by the install's egress CA (trusted inside every box), and
 * serves what arrives inside (serverFor). Each request is decided by the policy like a
 * plain one (forward-core.ts) and sent on over a verified TLS connection. The CONNECT's
 * host (not the inner Host header or SNI) names the upstream, so a request cannot be
 * steered to another host than the one its tunnel was decided for.
 */
export function interceptTunnel(deps: ProxyDeps, boxId: string, host: string, port: number, client: Duplex, head: Buffer) {
  client.pause();
  deps.ca!.contextFor(host).then(
    (leaf) => {
      if (client.destroyed) return;
      const server = serverFor(deps, boxId, host, port, leaf);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) client.unshift(head);
      server.emit('connection', client);
      client.resume();
    },
    (e) => {
      deps.onError?.(`egress: minting a certificate for ${host}`, e);
      if (!client.destroyed) rawReply(client, 502, `The egress proxy could not make a certificate for ${host}.\n`);
    },
  );
}
