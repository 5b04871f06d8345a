import type { RouteRegistrar } from '../http/route.js';
import { Reply } from '../http/route.js';
import type { Readiness } from './readiness.js';

export type { TemplatesState } from './readiness.js';

/**
 * `GET /v1/health` (liveness: the process answers) and `GET /v1/ready` (200 when ready,
 * 503 with the same body naming what is not): no key, so a supervisor can poll them; the
 * Host check still applies. Not counted against credits or limits.
 */
export function healthRoutes(r: RouteRegistrar, readiness: Readiness) {
  r.add({
    method: 'get',
    path: '/v1/health',
    area: 'common',
    tag: 'service',
    auth: 'none',
    billingExempt: true,
    summary: 'Liveness: the service process answers',
    handler: () => ({ status: 'ok' as const, uptime_s: Math.round(process.uptime()) }),
  });
  r.add({
    method: 'get',
    path: '/v1/ready',
    area: 'common',
    tag: 'service',
    auth: 'none',
    billingExempt: true,
    summary: 'Readiness: store open, migrations applied, no warm template still building (503 otherwise, same body)',
    handler: async () => {
      const body = await readiness.check();
      return new Reply(body.ready ? 200 : 503, body);
    },
  });
}
