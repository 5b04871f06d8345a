import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { decideRequest } from './decide.js';
import { injectedNames, injectHeaders, logFor, upstreamHeaders, type ForwardTarget } from './forward-core.js';
import { rawReply, type ProxyDeps } from './proxy-deps.js';
import { connectOptions, defaultResolver } from './upstream.js';
import { upstreamTls, upstreamTlsProblem } from './upstream-tls.js';

/**
 * An HTTP/1.1 Upgrade (WebSocket) from a box: decided like any request (method, path,
 * header rewrites with secrets), then the upstream's 101 is relayed and the two sockets
 * are joined. Anything but a 101 from the upstream is relayed as a plain answer.
 */
export async function forwardUpgrade(deps: ProxyDeps, boxId: string, req: http.IncomingMessage, client: Duplex, head: Buffer, t: ForwardTarget) {
  client.on('error', () => {});
  const method = req.method ?? 'GET';
  const d = decideRequest(await deps.policyFor(boxId), {
    host: t.host,
    port: t.port,
    gatewayPort: deps.gateway?.port(),
    method,
    path: t.pathAndQuery.split('?')[0]!,
  });
  const log = logFor(deps, boxId, method, t, d);
  const local = (status: number, body: string) => {
    log.bytesIn = rawReply(client, status, body);
    log.write(status);
  };
  if (d.verdict === 'deny') return local(403, `${d.message}\n`);
  if (d.verdict === 'respond') return local(d.respond!.status, d.respond!.body ?? '');
  const headers = upstreamHeaders(req, t);
  const missing = await injectHeaders(deps, boxId, d, headers);
  if (missing) return local(502, missing);
  log.injected = injectedNames(d);
  headers.connection = 'Upgrade';
  headers.upgrade = req.headers.upgrade ?? 'websocket';
  let opts;
  try {
    opts = connectOptions((deps.resolve ?? defaultResolver)(t.host, t.port));
  } catch (e) {
    return local(403, `${(e as Error).message}\n`);
  }
  const secure = t.scheme === 'https';
  const up = (secure ? https : http).request({
    ...opts,
    method,
    path: t.pathAndQuery,
    headers,
    agent: false,
    ...(secure ? upstreamTls(deps, t.host) : {}),
  });
  up.on('upgrade', (ur, upSock, upHead) => {
    const lines = [`HTTP/1.1 ${ur.statusCode} ${ur.statusMessage}`];
    for (let i = 0; i < ur.rawHeaders.length; i += 2) lines.push(`${ur.rawHeaders[i]}: ${ur.rawHeaders[i + 1]}`);
    client.write(lines.join('\r\n') + '\r\n\r\n');
    if (upHead.length) client.write(upHead);
    if (head.length) upSock.write(head);
    client.on('data', (c: Buffer) => (log.bytesOut += c.length));
    upSock.on('data', (c: Buffer) => (log.bytesIn += c.length));
    upSock.on('error', () => client.destroy());
    client.on('close', () => upSock.destroy());
    upSock.on('close', () => {
      client.destroy();
      log.write(ur.statusCode ?? 101);
    });
    client.pipe(upSock);
    upSock.pipe(client);
  });
  up.on('response', (ur) => {
    const body: Buffer[] = [];
    ur.on('data', (c: Buffer) => body.length < 64 && body.push(c));
    ur.on('end', () => local(ur.statusCode ?? 502, Buffer.concat(body).toString('utf8')));
  });
  up.on('error', (e) => {
    const why = secure ? upstreamTlsProblem(e, t.host) : undefined;
    local(502, why ?? `${t.host}:${t.port} could not be reached: ${e.message}\n`);
  });
  up.end();
}
