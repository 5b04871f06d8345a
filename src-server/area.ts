import type { Express } from 'express';
import type { RouteRegistrar } from './http/route.js';

/**
 * An area of the service as the wiring sees it once its services are built: its routes,
 * and optionally background work started after listen and stopped (in reverse) on close.
 */
export interface Area {
  name: string;
  routes(r: RouteRegistrar): void;
  /**
   * Routes outside Box's contract table, in another API's own wire format (E2B's at /e2b),
   * mounted on the main app behind the same local guard before the registry's routes.
   */
  mount?(app: Express): void;
  start?(): void | Promise<void>;
  stop?(): void | Promise<void>;
}
