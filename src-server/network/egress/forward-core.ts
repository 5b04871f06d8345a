import http from 'node:http';
import http2, { type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { Readable } from 'node:stream';
import { endToEnd } from '../hop-headers.js';
import { expandSecretRefs, secretRefs } from '../../contract/policies.js';
import { decideRequest, type EgressDecision } from './decide.js';
import { DEFAULT_IDLE_MS, nowIso, type ProxyDeps } from './proxy-deps.js';
import { connectOptions, defaultResolver, HostLocalError } from './upstream.js';
import { exchangeH1 } from './upstream-h1.js';
import { connectShared, slabWriter } from './read-slab.js';
import { requestH2 } from './upstream-h2.js';
import { upstreamTls, upstreamTlsProblem } from './upstream-tls.js';

type Req = http.IncomingMessage | Http2ServerRequest;
type Res = http.ServerResponse | Http2ServerResponse;

/** Where one request from a box goes, as the box named it (absolute URI, or CONNECT host + intercepted request). */
export interface ForwardTarget {
  scheme: 'http' | 'https';
  host: string;
  port: number;
  /** Path and query as sent. */
  pathAndQuery: string;
  /** Plain http only: a request given secret headers goes on over https:443 (no explicit port, not host.box.internal). */
  upgradeWhenInjecting?: boolean;
}

/** What every request logs, filled in as it goes. */
export function logFor(deps: ProxyDeps, boxId: string, method: string, t: ForwardTarget, d: EgressDecision) {
  const started = performance.now();
  const path = t.pathAndQuery.split('?')[0]!;
  const s = {
    bytesOut: 0,
    bytesIn: 0,
    done: false,
    reason: null as string | null,
    /** The headers the policy set (names, and the secret each came from: never a value). */
    injected: [] as { name: string; secret: string | null }[],
    upgraded: false,
  };
  return Object.assign(s, {
    write(status: number | null) {
      if (s.done) return;
      s.done = true;
      (deps.log.record ?? deps.log.add).call(deps.log, boxId, {
        at: nowIso(),
        method,
        host: t.host,
        port: t.port,
        path,
        scheme: t.scheme,
        verdict: d.verdict,
        policy_id: d.policyId,
        rule_index: d.ruleIndex,
        status,
        bytes_out: s.bytesOut,
        bytes_in: s.bytesIn,
        duration_ms: Math.round(performance.now() - started),
        reason: s.reason,
        injected_headers: s.injected,
        upgraded_to_https: s.upgraded,
      });
    },
  });
}

/** Request headers to send upstream: end-to-end only, no HTTP/2 pseudo-headers, Host set to the target. */
export function upstreamHeaders(req: Req, t: ForwardTarget): http.OutgoingHttpHeaders {
  const h = endToEnd(req.headers as http.IncomingHttpHeaders);
  for (const k of Object.keys(h)) if (k.startsWith(':')) delete h[k];
  h.host = (t.scheme === 'https' ? t.port === 443 : t.port === 80) ? t.host : `${t.host}:${t.port}`;
  return h;
}

/** The headers a decision sets, for the log: each name and the secret its value comes from (values are never logged). */
export function injectedNames(d: EgressDecision): { name: string; secret: string | null }[] {
  return Object.entries(d.setHeaders ?? {}).map(([name, template]) => ({ name: name.toLowerCase(), secret: secretRefs(template)[0] ?? null }));
}

/**
 * Applies the decision's header rewrites: `${secrets.NAME}` expanded here, on the host, so
 * values never enter the box. Returns the missing secret's problem text, if any.
 */
export async function injectHeaders(deps: ProxyDeps, boxId: string, d: EgressDecision, headers: http.OutgoingHttpHeaders): Promise<string | undefined> {
  for (const [name, template] of Object.entries(d.setHeaders ?? {})) {
    const values = new Map<string, string | undefined>();
    for (const s of secretRefs(template)) values.set(s, await deps.secretFor(boxId, s));
    const missing = [...values].find(([, v]) => v === undefined)?.[0];
    if (missing) return `The HTTP policy ${d.policyId} sets header ${name} from secret ${missing}, which does not exist in this organization.\n`;
    for (const k of Object.keys(headers)) if (k.toLowerCase() === name.toLowerCase()) delete headers[k];
    headers[name.toLowerCase()] = expandSecretRefs(template, (s) => values.get(s)!);
  }
  return undefined;
}

/**
 * One request from a box, decided by the whole policy (host, method, path), then answered
 * locally or streamed to the upstream and back (bodies are piped, never buffered). The
 * upstream TLS connection is always verified (system roots plus BOX_EGRESS_CA_FILE); one
 * that fails is answered 502 naming the reason, never passed through.
 */
export async function forwardTo(deps: ProxyDeps, boxId: string, req: Req, res: Res, t: ForwardTarget) {
  const method = req.method ?? 'GET';
  const d = decideRequest(await deps.policyFor(boxId), {
    host: t.host,
    port: t.port,
    gatewayPort: deps.gateway?.port(),
    method,
    path: t.pathAndQuery.split('?')[0]!,
  });
  const log = logFor(deps, boxId, method, t, d);
  const h2 = req.httpVersionMajor === 2;
  const local = (status: number, body: string, why: string = d.verdict, reason: string = body) => {
    req.resume();
    const buf = Buffer.from(body, 'utf8');
    log.bytesIn = buf.length;
    log.reason = reason.trim().slice(0, 500) || why;
    const headers = { 'content-type': 'text/plain; charset=utf-8', 'content-length': buf.length, 'x-box-egress': why };
    (res as http.ServerResponse).writeHead(status, headers);
    res.end(buf);
    log.write(status);
  };
  if (d.verdict === 'deny') return local(403, `${d.message}\n`);
  if (d.verdict === 'respond') return local(d.respond!.status, d.respond!.body ?? '', d.verdict, d.message);

  const headers = upstreamHeaders(req, t);
  const missing = await injectHeaders(deps, boxId, d, headers);
  if (missing) return local(502, missing, 'missing-secret');
  log.injected = injectedNames(d);
  if (deps.gateway?.isGateway(t.host, t.port) && !deps.gateway.authorize(boxId, headers)) {
    return local(401, "The local inference gateway needs this box's own key (OPENAI_API_KEY / ANTHROPIC_API_KEY as set in the box).\n", 'gateway-unauthorized');
  }
  let { scheme, port } = t;
  if (t.upgradeWhenInjecting && Object.keys(d.setHeaders ?? {}).length) {
    scheme = 'https';
    port = 443;
    headers.host = t.host;
    log.upgraded = true;
  }
  const secure = scheme === 'https';
  let opts;
  try {
    opts = connectOptions((deps.resolve ?? defaultResolver)(t.host, port));
  } catch (e) {
    return local(403, `${(e as Error).message}\n`);
  }
  const fail = (e: Error) => {
    if (res.headersSent) return void res.destroy();
    if (e instanceof HostLocalError) return local(403, `${e.message}\n`);
    const tlsWhy = secure ? upstreamTlsProblem(e, t.host) : undefined;
    if (tlsWhy) return local(502, tlsWhy, 'upstream-untrusted');
    const upgraded = log.upgraded ? ` (sent on over HTTPS: the policy puts headers into this http:// request, which never go out in clear text)` : '';
    return local(/in time/.test(e.message) ? 504 : 502, `${t.host}:${port} could not be reached${upgraded}: ${e.message}\n`, 'upstream-unreachable');
  };
  /** Sends the upstream's status and end-to-end headers to the box. */
  const answer = (status: number, headers: http.IncomingHttpHeaders, reason?: string) => {
    const h = endToEnd(headers);
    for (const k of Object.keys(h)) if (k.startsWith(':')) delete h[k];
    if (h2) (res as Http2ServerResponse).writeHead(status, h);
    else (res as http.ServerResponse).writeHead(status, reason || http.STATUS_CODES[status] || '', h);
  };
  let cancel: (() => void) | undefined;
  res.on('finish', () => log.write(res.statusCode));
  res.on('close', () => {
    if (!res.writableFinished) cancel?.();
    log.write(res.headersSent ? res.statusCode : null);
  });
  const timeout = deps.idleTimeoutMs ?? DEFAULT_IDLE_MS;
  /** A body follows the box's request: announced by its length, or (unknown length) chunked upstream. */
  const bodyKind = (): 'none' | 'length' | 'chunked' => {
    if (h2 ? (req as Http2ServerRequest).stream.endAfterHeaders : !req.headers['transfer-encoding'] && !Number(req.headers['content-length'] ?? 0))
      return 'none';
    return req.headers['content-length'] !== undefined && !req.headers['transfer-encoding'] ? 'length' : 'chunked';
  };
  // HTTP/1.1 upstream: the proxy's own client (upstream-h1.ts), body bytes relayed as read.
  const viaH1 = () => {
    const pool = deps.agents?.h1;
    if (!pool) headers.connection = 'close';
    const body = bodyKind();
    if (body === 'chunked') delete headers['content-length'];
    const out = slabWriter(res as http.ServerResponse);
    const connect = () => connectShared(secure ? { ...opts, ...upstreamTls(deps, t.host) } : opts, secure).setNoDelay(true);
    const x = exchangeH1(
      pool,
      `${boxId} ${scheme} ${t.host} ${port}`,
      connect,
      { method, path: t.pathAndQuery, headers, body, source: req as Readable, sent: (n) => (log.bytesOut += n), timeoutMs: timeout },
      {
        response: (h) => answer(h.status, h.headers, h.reason),
        data: (c) => {
          log.bytesIn += c.length;
          return out.write(c);
        },
        end: () => {
          out.flush();
          res.end();
        },
        error: fail,
      },
    );
    cancel = x.cancel;
    res.on('drain', x.resume);
  };
  const viaH2 = (session: http2.ClientHttp2Session) => {
    const noBody = bodyKind() === 'none';
    let up: http2.ClientHttp2Stream;
    try {
      up = requestH2(session, method, t.pathAndQuery, headers, noBody);
    } catch (e) {
      // A header HTTP/2 refuses, or a session closing under us: an answer, never a thrown error in the proxy.
      return fail(e as Error);
    }
    cancel = () => up.close(http2.constants.NGHTTP2_CANCEL);
    if (noBody) req.resume();
    else {
      req.on('data', (c: Buffer) => (log.bytesOut += c.length));
      (req as Readable).pipe(up);
    }
    up.setTimeout(timeout, () => up.destroy(new Error('the upstream did not answer in time')));
    up.on('response', (rh) => {
      answer(Number(rh[':status']) || 502, rh as http.IncomingHttpHeaders);
      up.on('data', (c: Buffer) => (log.bytesIn += c.length));
      up.pipe(res as http.ServerResponse);
      up.on('error', () => res.destroy());
    });
    up.on('error', fail);
  };
  // The upstream leg speaks what the box's leg speaks. An HTTP/2 request (gRPC needs it
  // end to end) goes as a stream of the box's session to an origin that chooses h2 in ALPN;
  // an HTTP/1.1 one takes the HTTP/1.1 pool, which costs the proxy less per request and per
  // byte than Node's HTTP/2 client (docs/benchmarks-history.md, "Wave 7 (2026-11-24 09:05-09:50
  // UTC): a download without an ArrayBuffer per TLS record").
  const sessions = secure && h2 ? deps.agents?.h2 : undefined;
  const key = `${boxId} ${t.host} ${port}`;
  const known = sessions?.known(key);
  if (!sessions || known === null) return viaH1();
  if (known) return viaH2(known);
  req.pause();
  sessions.get(key, { ...opts, ...upstreamTls(deps, t.host) }, (e, session) => {
    if (res.destroyed || res.writableEnded) return;
    if (e) return fail(e);
    if (session) viaH2(session);
    else viaH1();
  });
}
