import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { AppContext } from '../app-context.js';
import type { ErrorBody } from '@box/contract/error-envelope';
import { DomainError, type DomainErrorKind } from '../../kernel/domain-errors.js';
import { isDiskFull } from '../../kernel/disk-space.js';
import { ApiError } from './api-errors.js';

/** The one place a domain error kind becomes an HTTP status (its `type` is the spec's, core/domain-errors.ts). */
const STATUS: Record<DomainErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  limit_exceeded: 429,
  failed: 500,
  not_implemented: 501,
  unavailable: 503,
};

/**
 * Headers that carry a domain error's retry advice: `x-should-retry: false` stops the
 * OpenAI/Anthropic SDKs' automatic retries of a final error; `Connection: close` because
 * an unread request body makes the connection unusable.
 */
function domainHeaders(e: DomainError): Record<string, string> {
  const h: Record<string, string> = {};
  if (e.final) h['x-should-retry'] = 'false';
  if (e.retryAfterSeconds !== undefined) h['Retry-After'] = String(e.retryAfterSeconds);
  if (e.bodyUnread) h.Connection = 'close';
  return h;
}

function fromDomain(e: DomainError): ApiError {
  return new ApiError(STATUS[e.kind], e.type, e.message, { param: e.param, code: e.code, headers: domainHeaders(e) });
}

interface RenderedError {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** Turns anything thrown into the spec's envelope; internals are logged (with the request's method and path when given), never sent. */
export function errorBody(
  err: unknown,
  app?: Pick<AppContext, 'log'> & Partial<Pick<AppContext, 'diskSpace'>>,
  where?: { method?: string; path: string },
): RenderedError {
  if (err instanceof DomainError) err = fromDomain(err);
  if (app?.diskSpace && isDiskFull(err)) {
    // 507 Insufficient Storage, naming the disk and what to free (issue 28), not a generic 500
    const a = new ApiError(507, 'server_error', app.diskSpace.fullMessage(), { code: 'insufficient_storage' });
    // a write refused mid-body (an upload) leaves the connection unusable: the client opens a new one
    return { status: 507, body: a.toBody(), headers: { Connection: 'close' } };
  }
  if (err instanceof ApiError) return { status: err.status, body: err.toBody(), headers: err.headers };
  const e = err as { type?: string; status?: number; message?: string };
  if (e?.type === 'entity.too.large' || e?.status === 413) {
    const a = new ApiError(413, 'invalid_request_error', 'The request body is too large.', { code: 'request_too_large' });
    return { status: 413, body: a.toBody(), headers: {} };
  }
  if (e?.type === 'entity.parse.failed') {
    const a = new ApiError(400, 'invalid_request_error', `The request body is not valid JSON: ${e.message}`, { code: 'invalid_json' });
    return { status: 400, body: a.toBody(), headers: {} };
  }
  if (e?.message === 'aborted' || (err as NodeJS.ErrnoException)?.code === 'ECONNRESET') {
    // The client went away mid-request (e.g. a cancelled upload): nothing to log as a fault.
    const a = new ApiError(400, 'invalid_request_error', 'The request was aborted by the client.', { code: 'client_aborted' });
    return { status: 400, body: a.toBody(), headers: {} };
  }
  (app?.log ?? console).error('unexpected error', err, ...(where ? [{ method: where.method, path: where.path }] : []));
  const a = new ApiError(500, 'server_error', 'The service hit an unexpected error; it was logged.');
  return { status: 500, body: a.toBody(), headers: {} };
}

/**
 * How a route writes its errors (`RouteSpec.errors`): `box`, the spec's envelope
 * `{error:{message,type,param,code}}` (Anthropic-style endpoints, `/v1/messages...`, also
 * carry a top-level `"type": "error"`, which Anthropic clients read); `e2b`, E2B's
 * `{code, message}` (its API at /e2b, read by the stock E2B SDKs). The status and headers
 * are the same in every style: the table above is the only one.
 */
export type ErrorStyle = 'box' | 'e2b';

/** The style of a request's errors, set by the pipeline once a route is matched (errors before it: `box`). */
const styles = new WeakMap<IncomingMessage, ErrorStyle>();

export function setErrorStyle(req: IncomingMessage, style: ErrorStyle | undefined): void {
  if (style && style !== 'box') styles.set(req, style);
}

/** The body of a rendered error in a request's style. */
export function styledErrorBody(req: IncomingMessage, e: RenderedError): unknown {
  const body = e.body as ErrorBody;
  if (styles.get(req) === 'e2b') return { code: e.status, message: body.error.message };
  return pathOf(req).startsWith('/v1/messages') ? { type: 'error', ...body } : body;
}

/** The path of a request, without its query (Express's `req.path`, for plain node:http requests too). */
export const pathOf = (req: IncomingMessage): string => {
  const url = (req as Partial<Request>).originalUrl ?? req.url ?? '/';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Writes a JSON answer with node:http's own API (both pipelines answer through here). The
 * body as one string: node then sends headers and body in a single write. `null` for 204.
 */
export function writeJson(res: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer | null, type = JSON_TYPE): void {
  res.statusCode = status;
  for (const k in headers) res.setHeader(k, headers[k]!);
  if (body === null) {
    res.end();
    return;
  }
  res.setHeader('Content-Type', type === 'application/json' ? JSON_TYPE : type);
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  res.end(body);
}

/** Anything thrown, rendered in the request's error style (`setErrorStyle`). */
export function renderError(
  req: IncomingMessage,
  err: unknown,
  app: Pick<AppContext, 'log'>,
): { status: number; headers: Record<string, string>; body: unknown } {
  const r = errorBody(err, app, { method: req.method, path: pathOf(req) });
  return { status: r.status, headers: r.headers, body: styledErrorBody(req, r) };
}

/** Answers anything thrown with the envelope (or drops a connection whose answer already began). */
export function sendError(req: IncomingMessage, res: ServerResponse, err: unknown, app: Pick<AppContext, 'log'>): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const r = renderError(req, err, app);
  writeJson(res, r.status, r.headers, JSON.stringify(r.body));
}

export function errorMiddleware(app: Pick<AppContext, 'log'>) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => sendError(req, res, err, app);
}
