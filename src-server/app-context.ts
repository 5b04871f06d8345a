import type { Express } from 'express';
import type { Services } from './wiring.js';
import type { Db } from './db/connection.js';
import type { Repos } from './db/repos.js';
import type { Billing, ConcurrencyLimiter } from './http/limits.js';
import type { RouteSpec } from './http/route.js';
import type { ServiceLog } from './logs/service-log.js';
import type { DiskSpace } from './core/disk-space.js';

export interface ServiceConfig {
  dataDir: string;
  host: string;
  /** Port of the box API (and of inference too unless inferencePort is set). 0 picks a free port. */
  port: number;
  inferencePort?: number;
  jsonBodyLimitBytes: number;
  maxConcurrentPerOrg: number;
  /** Long-lived streams (exec, console, egress log, SSE) in flight per organization: a pool of their own. */
  maxStreamsPerOrg: number;
  /** Built renderer to serve as the web UI (index.html inside), when present. */
  webUiDir?: string;
  /** Area-specific tuning, mostly for tests (e.g. a short webhook retry schedule). */
  tuning: Record<string, unknown>;
  /** Check every 2xx JSON answer against its route's response schema (tests; http/response-check.ts). */
  checkResponses?: boolean;
  /** Who runs the service: the desktop app (asks on quit) or a headless process (default). */
  shell?: 'desktop' | 'headless';
}

export interface Logger {
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

/**
 * What every area is built from: configuration, the database and the shared HTTP-layer
 * pieces. Services are handed their other dependencies explicitly by `wiring.ts`.
 */
export interface AppBase {
  config: ServiceConfig;
  db: Db;
  repos: Repos;
  billing: Billing;
  limiter: ConcurrencyLimiter;
  log: Logger;
  /** The same log as `log`, with its ring and file (GET /v1/service/log reads it). */
  serviceLog: ServiceLog;
  /** The data dir's disk: free space, low-disk warning, 507 wording, the reserve (core/disk-space.ts). */
  diskSpace: DiskSpace;
  /** Each area may add fields to GET /v1/status (accelerator, engines...). */
  statusProviders: Array<() => Record<string, unknown>>;
  /** The base URL the service is reachable at (known after listen). */
  baseUrl(): string;
}

/** The base plus every service, all built (see wiring.ts). */
export interface AppContext extends AppBase {
  services: Services;
}

/**
 * What route handlers see (`RouteCtx.app`): every service, but neither the database nor a
 * repository, so a handler cannot bypass its area's service (docs/architecture.md, "Adding
 * an endpoint"). The HTTP pipeline itself (authentication, idempotency) uses `AppContext`.
 */
export type RouteApp = Omit<AppContext, 'db' | 'repos'>;

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

export interface RouteRegistrar {
  add<B, Q, P>(spec: RouteSpec<B, Q, P>): void;
}
