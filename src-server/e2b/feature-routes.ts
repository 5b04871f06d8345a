import { E2BSandboxIdParams } from '../contract/e2b.js';
import { E2BMetricsListQuery, E2BMetricsQuery, E2BNetworkUpdateBody } from '../contract/e2b-features.js';
import { NotImplemented } from '../core/domain-errors.js';
import { Reply, type Method, type RouteRegistrar, type RouteSpec } from '../http/route.js';
import { e2bMetric, metricsWindow } from './metrics.js';
import type { MetricsPort } from './ports.js';
import type { SandboxService } from './sandbox-service.js';

const PREFIX = '/e2b/api';

/**
 * E2B's routes for what Box has under its own names (issue 33): a sandbox's network rules
 * are its Box HTTP policy, its metrics Box's per-box meters.
 */
export function e2bFeatureRoutes(r: RouteRegistrar, deps: { sandboxes: SandboxService; metrics: MetricsPort }): void {
  const { sandboxes, metrics } = deps;
  const on = <B, Q, P>(method: Method, path: string, summary: string, spec: Omit<RouteSpec<B, Q, P>, 'method' | 'path' | 'area' | 'tag' | 'summary'>) =>
    r.add({ method, path: `${PREFIX}${path}`, area: 'box', tag: 'e2b', summary, errors: 'e2b', ...spec });

  on('put', '/sandboxes/:sandboxID/network', "E2B: replace a sandbox's network rules (its Box HTTP policy)", {
    params: E2BSandboxIdParams,
    body: E2BNetworkUpdateBody,
    handler: async ({ auth, params: p, body }) => {
      if (body.egressProxy)
        throw new NotImplemented("Box's E2B API does not support egressProxy: Box's egress proxy is the sandbox's only way out.", { param: 'egressProxy' });
      await sandboxes.updateNetwork(auth.orgId, p.sandboxID, {
        allowOut: body.allowOut,
        denyOut: body.denyOut,
        rules: body.rules,
        allowInternetAccess: body.allow_internet_access,
      });
      return new Reply(204, null);
    },
  });

  // before /sandboxes/:sandboxID so that "metrics" is not read as a sandbox id
  on('get', '/sandboxes/metrics', 'E2B: the latest metrics of some sandboxes', {
    query: E2BMetricsListQuery,
    handler: async ({ auth, query }) => {
      const out: Record<string, ReturnType<typeof e2bMetric>> = {};
      const now = Date.now();
      for (const id of query.sandbox_ids) {
        const s = await sandboxes.find(auth.orgId, id);
        if (!s) continue;
        const last = (await metrics.samples(id, Date.parse(s.row.started_at), now)).at(-1);
        if (last) out[id] = e2bMetric(last, s.box);
      }
      return { sandboxes: out };
    },
  });

  on('get', '/sandboxes/:sandboxID/metrics', "E2B: a sandbox's metrics (Box's meters, sampled every few seconds)", {
    params: E2BSandboxIdParams,
    query: E2BMetricsQuery,
    handler: async ({ auth, params: p, query }) => {
      const s = await sandboxes.get(auth.orgId, p.sandboxID);
      const { from, to } = metricsWindow(query, s.row.created_at);
      return (await metrics.samples(s.row.box_id, from, to)).map((m) => e2bMetric(m, s.box));
    },
  });
}
