import type { RouteRegistrar } from './http/route.js';

/**
 * An area of the service as the wiring sees it once its services are built: its routes,
 * and optionally background work started after listen and stopped (in reverse) on close.
 */
export interface Area {
  name: string;
  routes(r: RouteRegistrar): void;
  start?(): void | Promise<void>;
  stop?(): void | Promise<void>;
}
