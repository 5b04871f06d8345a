import { callWith, type Answer, type CallRest, type JsonRouteKey } from '@box/contract/call';
import type { ErrorBody } from '@box/contract/error-envelope';
import { isNetworkError, reportReachable, reportUnreachable } from './connection.js';
import { humanValidation } from './human-errors.js';

/**
 * The renderer's only way to the service: same-origin fetch with the session cookie
 * (never an API key in JS). Any non-2xx answer becomes an ApiError carrying the spec's
 * envelope fields, so views can show the message and point at `param`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly param: string | null,
    readonly code: string | number | null,
    readonly body: unknown,
  ) {
    super(message);
  }

  static async from(res: Response): Promise<ApiError> {
    const text = await res.text().catch(() => '');
    return ApiError.fromText(res.status, text);
  }

  static fromText(status: number, text: string): ApiError {
    try {
      const body = JSON.parse(text) as Partial<ErrorBody>;
      const e = body.error;
      if (e && typeof e.message === 'string')
        return new ApiError(status, status === 400 ? humanValidation(e.message) : e.message, e.type ?? 'server_error', e.param ?? null, e.code ?? null, body);
    } catch {
      // not JSON: fall through to a generic error with the text
    }
    return new ApiError(status, text.trim() || `HTTP ${status}`, status >= 500 ? 'server_error' : 'invalid_request_error', null, null, text);
  }
}

/** A request that got no answer: the service is not running (or not reachable). */
class ServiceUnreachableError extends Error {
  constructor() {
    super('The service is not reachable: it is stopped or restarting.');
  }
}

type Query = Record<string, string | number | boolean | undefined | null>;

interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  json?: unknown;
  query?: Query;
  body?: BodyInit;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export function apiUrl(path: string, query?: Query): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') qs.set(k, String(v));
  const s = qs.toString();
  return s ? `${path}${path.includes('?') ? '&' : '?'}${s}` : path;
}

/** A raw fetch (streams, files): throws ApiError on non-2xx, hands back the Response otherwise. */
export async function apiFetch(path: string, opts: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...opts.headers };
  let body = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(apiUrl(path, opts.query), {
      method: opts.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      credentials: 'same-origin',
      signal: opts.signal,
    });
  } catch (e) {
    // No answer at all: the service is down (connection.ts), said in words, not "Failed to fetch".
    if (!isNetworkError(e)) throw e;
    reportUnreachable();
    throw new ServiceUnreachableError();
  }
  reportReachable();
  if (!res.ok) throw await ApiError.from(res);
  return res;
}

/** JSON in, JSON out. 204 answers undefined. */
export async function api<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await apiFetch(path, opts);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * One operation of the contract (packages/contract/src/routes.ts), typed from it:
 * `call('GET /v1/boxes/:box_id', { params: { box_id } })` answers a Box.
 */
export function call<K extends JsonRouteKey>(key: K, ...args: CallRest<K>): Promise<Answer<K>> {
  return callWith(
    (r) => api(r.path, { method: r.method as RequestOptions['method'], query: r.query, json: r.json, headers: r.headers, signal: r.signal }),
    key,
    ...args,
  );
}

export type { Answer };

/** Human text for any thrown value, preferring the API's own message. */
export function errorMessage(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}
