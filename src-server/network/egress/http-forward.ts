import http from 'node:http';
import https from 'node:https';
import { endToEnd } from '../hop-headers.js';
import { expandSecretRefs, secretRefs } from '../../contract/policies.js';
import { decideRequest } from './decide.js';
import { DEFAULT_IDLE_MS, nowIso, type ProxyDeps } from './proxy-deps.js';
import { connectOptions, defaultResolver, HOST_INTERNAL, HostLocalError } from './upstream.js';

/** The request URI names a port (URL drops a default one: `http://h:80/` has port ''). */
const EXPLICIT_PORT = /^[a-z]+:\/\/(?:[^@/]*@)?(?:\[[^\]]*\]|[^:/?#]*):\d+/i;

/**
 * One plain-HTTP request from a box (absolute-form URI). The whole policy applies: host,
 * method and path; `request.set.headers` are expanded here, on the host, so secret values
 * never enter the box. When a rule injects headers into a request for a remote host on
 * the default port, the request goes on over HTTPS (port 443; an explicit port in the URI keeps plain HTTP): a box calls
 * `http://api.example.com/...` and the secret never crosses the network in clear text.
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
  let secure = url.protocol === 'https:';
  let port = url.port ? Number(url.port) : secure ? 443 : 80;
  const method = req.method ?? 'GET';
  const d = decideRequest(deps.policyFor(boxId), { host, method, path: url.pathname });
  let bytesOut = 0;
  let bytesIn = 0;
  let logged = false;
  const log = (status: number | null) => {
    if (logged) return;
    logged = true;
    deps.log.add(boxId, { at: nowIso(), method, host, port, path: url.pathname, verdict: d.verdict, policy_id: d.policyId, rule_index: d.ruleIndex, status, bytes_out: bytesOut, bytes_in: bytesIn });
  };
  const local = (status: number, body: string) => {
    req.resume();
    const buf = Buffer.from(body, 'utf8');
    bytesIn = buf.length;
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': buf.length, 'x-box-egress': d.verdict });
    res.end(buf);
    log(status);
  };

  if (d.verdict === 'deny') return local(403, `${d.message}\n`);
  if (d.verdict === 'respond') return local(d.respond!.status, d.respond!.body ?? '');

  const headers = endToEnd(req.headers);
  headers.host = url.host;
  const injected = Object.entries(d.setHeaders ?? {});
  for (const [name, template] of injected) {
    const missing = secretRefs(template).find((s) => deps.secretFor(boxId, s) === undefined);
    if (missing) return local(502, `The HTTP policy ${d.policyId} sets header ${name} from secret ${missing}, which does not exist in this organization.\n`);
    for (const k of Object.keys(headers)) if (k.toLowerCase() === name.toLowerCase()) delete headers[k];
    headers[name.toLowerCase()] = expandSecretRefs(template, (s) => deps.secretFor(boxId, s)!);
  }
  if (injected.length && !secure && !EXPLICIT_PORT.test(req.url!) && host !== HOST_INTERNAL) {
    secure = true;
    port = 443;
  }
  const target = (deps.resolve ?? defaultResolver)(host, port);
  let opts;
  try {
    opts = connectOptions(target);
  } catch (e) {
    return local(403, `${(e as Error).message}\n`);
  }
  const up = (secure ? https : http).request({
    ...opts,
    method,
    path: url.pathname + url.search,
    headers,
    agent: false,
    timeout: deps.idleTimeoutMs ?? DEFAULT_IDLE_MS,
    ...(secure ? { servername: host, ...(deps.tlsCa ? { ca: deps.tlsCa } : {}) } : {}),
  });
  req.on('data', (c: Buffer) => (bytesOut += c.length));
  req.pipe(up);
  up.on('response', (ur) => {
    const h = endToEnd(ur.headers);
    res.writeHead(ur.statusCode ?? 502, ur.statusMessage, h);
    ur.on('data', (c: Buffer) => (bytesIn += c.length));
    ur.pipe(res);
    ur.on('error', () => res.destroy());
  });
  up.on('timeout', () => up.destroy(new Error('the upstream did not answer in time')));
  up.on('error', (e) => {
    if (res.headersSent) return res.destroy();
    const timeout = /in time/.test(e.message);
    const why = e instanceof HostLocalError ? e.message : `${host}:${port} could not be reached: ${e.message}`;
    return local(e instanceof HostLocalError ? 403 : timeout ? 504 : 502, `${why}\n`);
  });
  res.on('close', () => {
    if (!res.writableFinished) up.destroy();
    log(res.headersSent ? res.statusCode : null);
  });
}
