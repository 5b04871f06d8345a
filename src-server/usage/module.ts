import type { AppBase } from '../app-context.js';
import type { Area } from '../area.js';
import type { BoxAccess } from '../boxes/ports.js';
import type { BoxService } from '../boxes/module.js';
import type { OrganizationService } from '../core/organization-service.js';
import { BoxMetricsService } from './box-metrics.js';
import { MetricsRepo } from './metrics-repo.js';
import { MetricsSampler } from './sampler.js';
import { usageRoutes } from './usage-routes.js';
import { UsageService } from './usage-service.js';

/**
 * Box metrics, box and token usage drawn from credits, the spend and token reports.
 * `usage.recordTokens` is for inference, `recordBoxTime` for box time; tests call
 * `metricsSampler.tick(now)` directly. Tuning: `metricsEveryMs`.
 */
export function usageArea(app: AppBase, deps: { boxes: BoxService; organization: Pick<OrganizationService, 'charge'>; access: BoxAccess }) {
  const metrics = new MetricsRepo(app.db);
  const usage = new UsageService(app, deps.organization);
  const metricsSampler = new MetricsSampler(app, deps.boxes, usage, metrics, app.config.tuning.metricsEveryMs);
  const area: Area = {
    name: 'usage',
    routes: (r) => usageRoutes(r, new BoxMetricsService(metrics), { usage, access: deps.access }),
    start: () => metricsSampler.start(),
    async stop() {
      metricsSampler.stop();
      await usage.flushTokens();
    },
  };
  return { usage, metricsSampler, metrics, area };
}
