import http from 'node:http';
import https from 'node:https';
import { DomainError, Failed, Invalid, LimitExceeded, NotFound, Unavailable } from '../../../../kernel/domain-errors.js';
import { connectFailure } from './probe.js';

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

interface Target {
  mod: typeof http | typeof https;
  agent: http.Agent;
  protocol: string;
  hostname: string;
  port: string;
  path: string;
  auth: string | undefined;
}

/**
 * Parsed upstream URLs: an engine calls the same one or two URLs all the time, and parsing
 * a URL (plus Node turning it back into request options) showed in the gateway's profile.
 */
const targets = new Map<string, Target>();
const TARGETS_MAX = 256;

export function target(url: string): Target {
  let t = targets.get(url);
  if (!t) {
    const u = new URL(url);
    const https_ = u.protocol === 'https:';
    t = {
      mod: https_ ? https : http,
      agent: agents[https_ ? 'https:' : 'http:'],
      protocol: u.protocol,
      // URL keeps IPv6 hosts bracketed; request options want them bare.
      hostname: u.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: u.port,
      path: `${u.pathname}${u.search}`,
      auth: u.username || u.password ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` : undefined,
    };
    if (targets.size >= TARGETS_MAX) targets.clear();
    targets.set(url, t);
  }
  return t;
}

/** A plain node:http exchange on keep-alive agents (cheaper per call than fetch). */
function exchange(url: string, method: string, headers: Record<string, string>, body: string | undefined, timeoutMs: number, signal?: AbortSignal) {
  return new Promise<{ status: number; retryAfter: string | null; text: string }>((resolve, reject) => {
    const t = target(url);
    const opts = { protocol: t.protocol, hostname: t.hostname, port: t.port, path: t.path, auth: t.auth, method, headers, agent: t.agent };
    const req = t.mod.request(opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        const ra = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, retryAfter: typeof ra === 'string' ? ra : null, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    // The caller went away: close the upstream connection so the upstream stops work too.
    const onAbort = () => req.destroy(new Error('the client went away'));
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('close', () => signal?.removeEventListener('abort', onAbort));
    if (signal?.aborted) onAbort();
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(Object.assign(e, { stale: req.reusedSocket && !answered && STALE_CODES.has((e as NodeJS.ErrnoException).code ?? '') }));
    });
    let answered = false;
    req.on('response', () => (answered = true));
    req.end(body);
  });
}

/**
 * A kept-alive connection the upstream closed just as we reused it fails before any answer
 * (the race Node's http documentation describes): the upstream never read the request, so
 * it is sent again once on a new connection.
 */
const STALE_CODES = new Set(['ECONNRESET', 'EPIPE']);
async function exchangeRetryingStale(...args: Parameters<typeof exchange>): ReturnType<typeof exchange> {
  try {
    return await exchange(...args);
  } catch (e) {
    if (!(e as { stale?: boolean }).stale) throw e;
    return exchange(...args);
  }
}

/**
 * One JSON call to an upstream. Network failures and 5xx become 503 (momentarily
 * unavailable); the upstream's own words are kept in the message, never its raw body.
 */
export async function upstreamJson(
  engine: string,
  url: string,
  init: { method?: string; headers: Record<string, string>; body?: unknown; timeoutMs: number; signal?: AbortSignal },
): Promise<unknown> {
  const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  let res: { status: number; retryAfter: string | null; text: string };
  try {
    res = await exchangeRetryingStale(url, init.method ?? (payload === undefined ? 'GET' : 'POST'), headers, payload, init.timeoutMs, init.signal);
  } catch (e) {
    const why = connectFailure(e as NodeJS.ErrnoException, new URL(url), init.timeoutMs).message;
    throw new Unavailable(`Upstream engine "${engine}" is unreachable: ${why}`, { code: 'upstream_unavailable' });
  }
  let body: unknown;
  try {
    body = res.text ? JSON.parse(res.text) : undefined;
  } catch {
    body = undefined;
  }
  const ok = res.status >= 200 && res.status < 300;
  if (ok && body !== undefined) return body;
  if (ok) throw new Unavailable(`Upstream engine "${engine}" answered with a body that is not JSON.`, { code: 'upstream_bad_response' });
  throw mapUpstreamError(engine, res.status, upstreamMessage(body) ?? res.text.slice(0, 300), res.retryAfter);
}

export function upstreamMessage(body: unknown): string | undefined {
  const e = (body as { error?: { message?: unknown } | string } | undefined)?.error;
  if (typeof e === 'string') return e;
  if (e && typeof e.message === 'string') return e.message;
  return undefined;
}

/** Upstream status → our envelope: 4xx are the request's fault, 401/403 are ours. */
export function mapUpstreamError(engine: string, status: number, message: string, retryAfter: string | null): DomainError {
  const said = `Upstream engine "${engine}" answered ${status}: ${message}`;
  if (status === 401 || status === 403) {
    return new Failed(`${said} (check the engine's API key)`, { code: 'upstream_auth_failed' });
  }
  if (status === 404) return new NotFound(said, { code: 'model_not_found', param: 'model' });
  if (status === 429) {
    return new LimitExceeded(said, {
      code: 'upstream_rate_limited',
      retryAfterSeconds: retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined,
    });
  }
  if (status >= 400 && status < 500) return new Invalid(said, { code: 'upstream_rejected' });
  return new Unavailable(said, { code: 'upstream_unavailable' });
}
