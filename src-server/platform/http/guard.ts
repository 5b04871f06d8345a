import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { hostAllowed } from '../serving/ports.js';
import { ApiError } from './api-errors.js';

/** What the guard needs of the service's configuration. */
interface GuardConfig {
  /** Host names served besides loopback ones (serving/listen-config.ts). */
  allowedHosts?: readonly string[];
  /** Set when the service is served over TLS (an Origin must then be https://). */
  tls?: unknown;
}

/**
 * Local safety. A browser can be made to reach the service: refuse a Host that is not a
 * loopback name or an allowed one (DNS rebinding; allowed names: --allowed-hosts,
 * BOX_ALLOWED_HOSTS, the --listen address) and any cross-origin browser request (we never
 * send CORS headers, and preflights are refused here).
 * The one check every request pipeline runs (Express's middleware below, http/plain-front.ts, http/upgrade.ts).
 */
export function guardError(req: IncomingMessage, config: GuardConfig = {}): ApiError | undefined {
  const host = req.headers.host ?? '';
  const allowed = config.allowedHosts ?? [];
  if (!hostAllowed(host, allowed)) {
    const names = allowed.length ? `loopback names and ${allowed.join(', ')}` : 'loopback names only';
    return new ApiError(
      403,
      'permission_error',
      `Host "${host}" is not allowed: this service answers ${names} (add a name with --allowed-hosts or BOX_ALLOWED_HOSTS).`,
      { code: 'host_not_allowed' },
    );
  }
  const origin = req.headers.origin;
  const site = req.headers['sec-fetch-site'];
  const sameOrigin = origin === undefined || origin === `${config.tls ? 'https' : 'http'}://${host}`;
  if (!sameOrigin || site === 'cross-site' || site === 'same-site' || req.method === 'OPTIONS') {
    return new ApiError(403, 'permission_error', 'Cross-origin requests are not allowed.', { code: 'cross_origin_refused' });
  }
  return undefined;
}

/** Express's middleware running `guardError` with the service's configuration. */
export const localGuard =
  (config: GuardConfig) =>
  (req: Request, _res: Response, next: NextFunction): void => {
    next(guardError(req, config));
  };
