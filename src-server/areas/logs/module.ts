import type { Area } from '../../platform/area.js';
import type { BoxAccess } from '../boxes/ports.js';
import type { BoxRuntime } from '../boxes/ports.js';
import { ConsoleService } from './console-service.js';
import { logRoutes } from './log-routes.js';
import type { ServiceLog } from '../../kernel/service-log.js';

/**
 * Logs (issue 15): the service's own log (a ring of this run, kept by `ServiceLog`, which
 * service.ts builds as `app.log` so that every area writes to it) and each box's serial
 * console, read through the runtime port, never from a client-given path.
 */
export function logsArea(deps: { log: ServiceLog; runtime: Pick<BoxRuntime, 'consoleLog'>; access: BoxAccess }) {
  const consoles = new ConsoleService(deps.runtime);
  const area: Area = { name: 'logs', routes: (r) => logRoutes(r, { log: deps.log, console: consoles, access: deps.access }) };
  return { consoles, area };
}
export type { ConsoleService } from './console-service.js';
