import type { RouteRegistrar } from '../http/route.js';
import type { BoxAccess } from '../boxes/ports.js';
import { BoxIdParams } from '../contract/boxes.js';
import { MetricsQuery, MetricsResponse, SpendQuery, SpendResponse, TokensQuery, TokensResponse } from '../contract/usage.js';
import type { BoxMetricsService } from './box-metrics.js';
import type { UsageService } from './usage-service.js';

export function usageRoutes(r: RouteRegistrar, metrics: BoxMetricsService, s: { usage: UsageService; access: BoxAccess }) {
  const { access } = s;
  r.add({
    method: 'get',
    path: '/v1/boxes/spend',
    area: 'box',
    tag: 'usage',
    query: SpendQuery,
    response: SpendResponse,
    summary: 'Box spend over a window (hour resolution), per box and per UTC day; filter by box_id or app_id',
    handler: async ({ auth, query }) => await s.usage.spend(auth.orgId, query),
  });

  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/metrics',
    area: 'box',
    tag: 'usage',
    params: BoxIdParams,
    query: MetricsQuery,
    response: MetricsResponse,
    summary: "The box's CPU, memory and disk use over 1h, 6h, 24h or 7d, at most 300 points; never wakes the box",
    handler: async ({ auth, req, params, query }) => {
      await access.boxFor(req, auth, params.box_id, 'read');
      return { range: query.range, data: await metrics.series(params.box_id, query.range) };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/usage/tokens',
    area: 'box',
    tag: 'usage',
    query: TokensQuery,
    response: TokensResponse,
    summary: 'Inference tokens and their cost per model per UTC day over a window',
    handler: async ({ auth, query }) => await s.usage.tokens(auth.orgId, query),
  });
}
