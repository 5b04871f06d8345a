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
   * Handlers that are not registry routes, in another API's own protocol (E2B's sandbox URL:
   * connect-rpc, NDJSON; its signed file URLs), mounted on the main app behind the same local
   * guard before the web UI and the registry's routes; they run the pipeline's `admit`.
   */
  mount?(app: Express): void;
  start?(): void | Promise<void>;
  stop?(): void | Promise<void>;
}
