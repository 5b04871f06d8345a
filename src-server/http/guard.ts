import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from './api-errors.js';

const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\]|([a-z0-9-]+\.)+localhost)(:\d+)?$/i;

/**
 * Local safety. The service listens on loopback only, but a browser can still be made to
 * reach it: refuse a Host that is not a loopback name (DNS rebinding) and any cross-origin
 * browser request (we never send CORS headers, and preflights are refused here).
 * The one check both request pipelines run (Express's middleware below and http/plain-front.ts).
 */
export function guardError(req: IncomingMessage): ApiError | undefined {
  const host = req.headers.host ?? '';
  if (!LOOPBACK_HOST.test(host)) {
    return new ApiError(403, 'permission_error', `Host "${host}" is not allowed: this service answers loopback names only.`, { code: 'host_not_allowed' });
  }
  const origin = req.headers.origin;
  const site = req.headers['sec-fetch-site'];
  const sameOrigin = origin === undefined || origin === `http://${host}`;
  if (!sameOrigin || site === 'cross-site' || site === 'same-site' || req.method === 'OPTIONS') {
    return new ApiError(403, 'permission_error', 'Cross-origin requests are not allowed.', { code: 'cross_origin_refused' });
  }
  return undefined;
}

export function localGuard(req: Request, _res: Response, next: NextFunction) {
  next(guardError(req));
}
