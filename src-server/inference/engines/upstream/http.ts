import { ApiError } from '../../../http/errors.js';

export interface UpstreamReply {
  status: number;
  body: unknown;
}

/**
 * One JSON call to an upstream. Network failures and 5xx become 503 (momentarily
 * unavailable); the upstream's own words are kept in the message, never its raw body.
 */
export async function upstreamJson(engine: string, url: string, init: { method?: string; headers: Record<string, string>; body?: unknown; timeoutMs: number }): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { accept: 'application/json', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(init.timeoutMs),
    });
  } catch (e) {
    throw new ApiError(503, 'server_error', `Upstream engine "${engine}" is unreachable: ${(e as Error).message}`, { code: 'upstream_unavailable' });
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (res.ok && body !== undefined) return body;
  if (res.ok) throw new ApiError(503, 'server_error', `Upstream engine "${engine}" answered with a body that is not JSON.`, { code: 'upstream_bad_response' });
  throw mapUpstreamError(engine, res.status, upstreamMessage(body) ?? text.slice(0, 300), res.headers.get('retry-after'));
}

function upstreamMessage(body: unknown): string | undefined {
  const e = (body as { error?: { message?: unknown } | string } | undefined)?.error;
  if (typeof e === 'string') return e;
  if (e && typeof e.message === 'string') return e.message;
  return undefined;
}

/** Upstream status → our envelope: 4xx are the request's fault, 401/403 are ours. */
function mapUpstreamError(engine: string, status: number, message: string, retryAfter: string | null): ApiError {
  const said = `Upstream engine "${engine}" answered ${status}: ${message}`;
  if (status === 401 || status === 403) {
    return new ApiError(500, 'server_error', `${said} (check the engine's API key)`, { code: 'upstream_auth_failed' });
  }
  if (status === 404) return new ApiError(404, 'not_found_error', said, { code: 'model_not_found', param: 'model' });
  if (status === 429) {
    return new ApiError(429, 'rate_limit_error', said, {
      code: 'upstream_rate_limited',
      headers: retryAfter && /^\d+$/.test(retryAfter) ? { 'Retry-After': retryAfter } : {},
    });
  }
  if (status >= 400 && status < 500) return new ApiError(400, 'invalid_request_error', said, { code: 'upstream_rejected' });
  return new ApiError(503, 'server_error', said, { code: 'upstream_unavailable' });
}
