import type { IncomingMessage } from 'node:http';
import type { Principal } from './core/principal.js';
import type { Db } from './db/connection.js';
import type { Repos } from './db/repos.js';
import type { Billing, ConcurrencyLimiter } from './http/limits.js';
import type { Logger } from './logger.js';
import type { ServiceLog } from './logs/service-log.js';
import type { DiskSpace } from './core/disk-space.js';
import type { EnvSettings, Tuning } from './settings.js';
import type { ServingCert } from './serving/serving-tls.js';

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
  /** Area-specific tuning, mostly for tests (e.g. a short webhook retry schedule): settings.ts. */
  tuning: Tuning;
  /** The BOX_* environment, parsed at start (settings.ts). */
  env: EnvSettings;
  /** Check every 2xx JSON answer against its route's response schema (tests; http/response-check.ts). */
  checkResponses?: boolean;
  /** Host names served besides loopback ones (serving/listen-config.ts; http/guard.ts checks Host against them). */
  allowedHosts?: readonly string[];
  /** The certificate the API is served with (HTTPS), when it is (serving/serving-tls.ts). */
  tls?: ServingCert;
  /** Who runs the service: the desktop app (asks on quit) or a headless process (default). */
  shell?: 'desktop' | 'headless';
}

export type { Logger };

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

/**
 * What the HTTP pipeline runs on: the base plus the one thing it needs from an area
 * (wiring.ts fills it in). Route handlers get their services as arguments of their routes
 * function, never from here.
 */
export interface AppContext extends AppBase {
  /** Resolves a box's egress-proxy credential into its principal (inference routes; inference/box/). */
  boxPrincipal(req: IncomingMessage): Promise<Principal | undefined>;
}

/**
 * What route handlers see (`RouteCtx.app`): configuration, log and base URL, but neither the
 * database nor a repository nor any service, so a handler uses only the services its routes
 * function was handed (docs/architecture.md, "Adding an endpoint"). The HTTP pipeline itself
 * (authentication, idempotency) uses `AppContext`.
 */
export type RouteApp = Omit<AppContext, 'db' | 'repos'>;
