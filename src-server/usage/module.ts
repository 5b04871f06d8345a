import type { AppBase, Area } from '../app-context.js';
import type { BoxService } from '../boxes/box-service.js';
import type { OrganizationService } from '../core/organization-service.js';
import { BoxMetricsService } from './box-metrics.js';
import { MetricsRepo } from './metrics-repo.js';
import { MetricsSampler } from './sampler.js';
import { usageRoutes } from './usage-routes.js';
import { UsageService } from './usage-service.js';

const DEFAULT_EVERY_MS = 10_000;

/**
 * Box metrics, box and token usage drawn from credits, the spend and token reports.
 * `usage.recordTokens` is for inference, `recordBoxTime` for box time; tests call
 * `metricsSampler.tick(now)` directly. Tuning: `metricsEveryMs`.
 */
export function usageArea(app: AppBase, deps: { boxes: BoxService; organization: Pick<OrganizationService, 'charge'> }) {
  const metrics = new MetricsRepo(app.db);
  const usage = new UsageService(app, deps.organization);
  const metricsSampler = new MetricsSampler(app, deps.boxes, usage, metrics, Number(app.config.tuning.metricsEveryMs ?? DEFAULT_EVERY_MS));
  const area: Area = {
    name: 'usage',
    routes: (r) => usageRoutes(r, new BoxMetricsService(metrics)),
    start: () => metricsSampler.start(),
    stop() {
      metricsSampler.stop();
      usage.flushTokens();
    },
  };
  return { usage, metricsSampler, area };
}
