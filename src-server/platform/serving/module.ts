import type { AppBase } from '../app-context.js';
import type { Area } from '../area.js';
import { healthRoutes, type TemplatesState } from './health-routes.js';
import { Readiness } from './readiness.js';

/** The ingress's https certificate comes from the same serving CA (network/ingress). */
export { madeCert } from './serving-tls.js';

/**
 * Serving a network (docs/architecture.md): the liveness and readiness endpoints an
 * operator's supervisor (systemd, a load balancer, Kubernetes) polls. Listening, TLS and the
 * Host check are set up before the areas (listen-config.ts, serving-tls.ts, http/guard.ts).
 */
export function servingArea(app: AppBase, deps: { templates: TemplatesState }) {
  const readiness = new Readiness(app, deps.templates);
  const area: Area = { name: 'serving', routes: (r) => healthRoutes(r, readiness) };
  return { readiness, area };
}
