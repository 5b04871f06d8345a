import type http from 'node:http';
import http2 from 'node:http2';
import type { Duplex } from 'node:stream';
import { forwardTo, type ForwardTarget } from './forward-core.js';
import { rawReply, type ProxyDeps } from './proxy-deps.js';
import { forwardUpgrade } from './upgrade.js';

/**
 * TLS interception of one CONNECT tunnel: the proxy answers 200, terminates the box's TLS
 * with a leaf for `host` signed by the install's egress CA (trusted inside every box), and
 * serves what arrives inside as HTTP/2 when the client offers `h2` in ALPN, else HTTP/1.1
 * with keep-alive and WebSocket upgrades (Node's HTTP/2 secure server with allowHTTP1 does
 * the TLS and the ALPN choice). Each request is decided by the policy like a plain one
 * (forward-core.ts) and sent on over a verified TLS connection. The CONNECT's host (not the
 * inner Host header or SNI) names the upstream, so a request cannot be steered to another
 * host than the one its tunnel was decided for.
 */
export function interceptTunnel(deps: ProxyDeps, boxId: string, host: string, port: number, client: Duplex, head: Buffer) {
  client.pause();
  deps.ca!.contextFor(host).then(
    (leaf) => {
      if (client.destroyed) return;
      const target = (pathAndQuery: string | undefined): ForwardTarget => ({ scheme: 'https', host, port, pathAndQuery: pathAndQuery || '/' });
      const server = http2.createSecureServer({ allowHTTP1: true, key: leaf.key, cert: leaf.cert, SNICallback: (_n, cb) => cb(null, leaf.context) }, (req, res) =>
        forwardTo(deps, boxId, req, res, target(req.url)),
      );
      server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, h: Buffer) => forwardUpgrade(deps, boxId, req, socket, h, target(req.url)));
      server.on('sessionError', () => client.destroy());
      server.on('tlsClientError', () => client.destroy());
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
