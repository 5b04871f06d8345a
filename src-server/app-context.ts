import type { Db } from './db/connection.js';
import type { Repos } from './db/repos.js';
import type { Billing, ConcurrencyLimiter } from './http/limits.js';
import type { RouteSpec } from './http/route.js';

export interface ServiceConfig {
  dataDir: string;
  host: string;
  /** Port of the box API (and of inference too unless inferencePort is set). 0 picks a free port. */
  port: number;
  inferencePort?: number;
  jsonBodyLimitBytes: number;
  maxConcurrentPerOrg: number;
  /** Built renderer to serve as the web UI (index.html inside), when present. */
  webUiDir?: string;
  /** Area-specific tuning, mostly for tests (e.g. a short webhook retry schedule). */
  tuning: Record<string, unknown>;
}

export interface Logger {
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

/**
 * Domain services that areas expose to each other. Each area adds its own entry by
 * declaration merging: `declare module '../app-context.js' { interface Services { volumes: VolumesService } }`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Services {}

export interface AppContext {
  config: ServiceConfig;
  db: Db;
  repos: Repos;
  billing: Billing;
  limiter: ConcurrencyLimiter;
  log: Logger;
  services: Partial<Services>;
  /** Each area may add fields to GET /v1/status (accelerator, engines...). */
  statusProviders: Array<() => Record<string, unknown>>;
  /** The base URL the service is reachable at (known after listen). */
  baseUrl(): string;
}

/** An area of the service: registers its routes, and optionally runs background work. */
export interface AreaModule {
  name: string;
  install(app: AppContext, routes: RouteRegistrar): void | Promise<void>;
  start?(app: AppContext): void | Promise<void>;
  stop?(app: AppContext): void | Promise<void>;
}

export interface RouteRegistrar {
  add<B, Q, P>(spec: RouteSpec<B, Q, P>): void;
}
