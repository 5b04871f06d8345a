import type { AreaModule } from '../app-context.js';
import { MetricsRepo } from './metrics-repo.js';
import { MetricsSampler } from './sampler.js';
import { usageRoutes } from './usage-routes.js';
import { UsageService } from './usage-service.js';

declare module '../app-context.js' {
  interface Services {
    /** Usage and credits: `recordTokens` for inference, `recordBoxTime` for box time. */
    usage: UsageService;
    /** The metrics sampler; tests call `tick(now)` directly. */
    metricsSampler: MetricsSampler;
  }
}

const DEFAULT_EVERY_MS = 10_000;

/** Box metrics, box and token usage drawn from credits, the spend and token reports (needs boxes for metrics). */
export const usageModule: AreaModule = {
  name: 'usage',
  install(app, r) {
    const metrics = new MetricsRepo(app.db);
    const usage = new UsageService(app);
    app.services.usage = usage;
    app.services.metricsSampler = new MetricsSampler(app, usage, metrics, Number(app.config.tuning.metricsEveryMs ?? DEFAULT_EVERY_MS));
    usageRoutes(r, metrics);
  },
  start(app) {
    app.services.metricsSampler!.start();
  },
  stop(app) {
    app.services.metricsSampler?.stop();
    app.services.usage?.flushTokens();
  },
};
