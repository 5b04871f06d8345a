import type http from 'node:http';
import { forwardTo } from './forward-core.js';
import { failed, type ProxyDeps } from './proxy-deps.js';
import { HOST_INTERNAL } from './upstream.js';

/** The request URI names a port (URL drops a default one: `http://h:80/` has port ''). */
const EXPLICIT_PORT = /^[a-z]+:\/\/(?:[^@/]*@)?(?:\[[^\]]*\]|[^:/?#]*):\d+/i;

/**
 * One plain-HTTP request from a box (absolute-form URI). The whole policy applies: host,
 * method and path; `request.set.headers` are expanded on the host, so secret values never
 * enter the box. When a rule injects headers into a request for a remote host on the
 * default port, the request goes on over HTTPS (port 443; an explicit port in the URI keeps
 * plain HTTP): a box calls `http://api.example.com/...` and the secret never crosses the
 * network in clear text.
 */
export function forwardHttp(deps: ProxyDeps, boxId: string, req: http.IncomingMessage, res: http.ServerResponse) {
  let url: URL;
  try {
    url = new URL(req.url ?? '');
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
  } catch {
    req.resume();
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    res.end('This is the box egress proxy: send requests in absolute form (http://host/path), or CONNECT host:port for https.\n');
    return;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const secure = url.protocol === 'https:';
  const port = url.port ? Number(url.port) : secure ? 443 : 80;
  void forwardTo(deps, boxId, req, res, {
    scheme: secure ? 'https' : 'http',
    host,
    port,
    pathAndQuery: url.pathname + url.search,
    upgradeWhenInjecting: !secure && !EXPLICIT_PORT.test(req.url!) && host !== HOST_INTERNAL,
  }).catch((e) => failed(deps, res, e));
}
