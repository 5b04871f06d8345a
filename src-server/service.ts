import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { AppBase, Logger, ServiceConfig } from './platform/app-context.js';
import { createApp } from './app.js';
import { lockDataDir } from './data-dir-lock.js';
import { openDatabase, type Db } from './platform/db/connection.js';
import { makeRepos } from './platform/db/repos.js';
import { IDEMPOTENCY_RETENTION_MS } from './platform/db/idempotency-repo.js';
import { Billing, ConcurrencyLimiter } from './platform/http/limits.js';
import { KEEP_ALIVE_MS } from './platform/serving/keep-alive.js';
import type { RouteSpec } from './platform/http/route.js';
import type { BoxRuntime } from './areas/boxes/module.js';
import { PreparationTracker, showPreparation } from './areas/boxes/module.js';
import { QemuBoxRuntime } from './areas/runtime/module.js';
import { ServiceLog } from './kernel/service-log.js';
import { DiskSpace } from './kernel/disk-space.js';
import { wire, type WiredApp } from './wiring.js';
import { boxEnv, readTuning, type TuningInput } from './platform/settings.js';
import { baseUrlOf, createServer, servingNetwork } from './platform/serving/listen-config.js';

export interface ServiceHandle {
  /** The pipeline's context and every service (headless.ts, src-main and tests use them). */
  ctx: WiredApp;
  url: string;
  inferenceUrl: string;
  /** Where the minted API key was written on first start (undefined when seeded from env). */
  apiKeyFile: string;
  /** Every registered route (method, path, schemas): tests walk it. */
  routes: readonly RouteSpec[];
  /** A one-time link that logs a browser into the web UI without the API key in the URL. */
  loginUrl(): Promise<string>;
  close(): Promise<void>;
}

export interface StartOptions extends Partial<Omit<ServiceConfig, 'dataDir' | 'tuning' | 'env' | 'tls'>> {
  /** HTTPS: `true` with a certificate the service makes (always so beyond loopback), or the operator's files (serving/listen-config.ts). */
  tls?: boolean | { certFile: string; keyFile: string };
  dataDir: string;
  /** Area knobs (settings.ts, `TuningSchema`); an unknown or malformed one fails the start. */
  tuning?: TuningInput;
  /** Seeds an organization-scoped key with this value (scripts and tests). */
  apiKey?: string;
  /** The box runtime (default: QEMU); fast route tests pass a fake one. */
  runtime?: (dataDir: string) => BoxRuntime;
  /** Free bytes under which GET /v1/status warns (default: 1 GiB, or 5 % of a smaller disk). */
  diskLowBytes?: number;
  /** One-time preparation shown in GET /v1/status (default: fed by the QEMU runtime's image progress; none with a given runtime unless passed). */
  preparation?: PreparationTracker;
  log?: Logger;
  /** A PostgreSQL database to keep the state in instead of <dataDir>/box.db (BOX_DATABASE_URL wins when unset; tests pass it). */
  databaseUrl?: string;
}

export const API_KEY_FILE = 'api-key';
const UI_KEY_NAME = 'desktop-ui';

export async function startService(opts: StartOptions): Promise<ServiceHandle> {
  const t0 = performance.now();
  // A malformed BOX_* setting or a bad tuning key stops the start here (an unknown BOX_* variable is a warning, logged below).
  const env = boxEnv();
  const config: ServiceConfig = {
    dataDir: path.resolve(opts.dataDir),
    host: opts.host ?? '127.0.0.1',
    port: opts.port ?? 0,
    inferencePort: opts.inferencePort,
    jsonBodyLimitBytes: opts.jsonBodyLimitBytes ?? 1024 * 1024,
    maxConcurrentPerOrg: opts.maxConcurrentPerOrg ?? 64,
    maxStreamsPerOrg: opts.maxStreamsPerOrg ?? 256,
    webUiDir: opts.webUiDir,
    tuning: readTuning(opts.tuning),
    env,
    // On by default under vitest, so every route test checks every answer for free.
    checkResponses: opts.checkResponses ?? env.underTests,
    shell: opts.shell ?? 'headless',
  };
  // One service per data dir (data-dir-lock.ts); released by close, or taken over after a crash.
  const lock = lockDataDir(config.dataDir);
  try {
    return await startLocked(opts, config, lock, t0);
  } catch (e) {
    lock.release();
    throw e;
  }
}

async function startLocked(opts: StartOptions, config: ServiceConfig, lock: ReturnType<typeof lockDataDir>, t0: number): Promise<ServiceHandle> {
  const given = typeof opts.tls === 'object' ? opts.tls : undefined;
  const net = await servingNetwork({
    dataDir: config.dataDir,
    host: config.host,
    tls: opts.tls === true,
    tlsCertFile: given?.certFile,
    tlsKeyFile: given?.keyFile,
    allowedHosts: [...(opts.allowedHosts ?? [])],
  });
  Object.assign(config, net);
  const db = await openDatabase(config.dataDir, opts.databaseUrl ?? config.env.databaseUrl);
  // Every area logs through it: a ring for GET /v1/service/log, <data dir>/logs/service.log, and opts.log (the console).
  const log = new ServiceLog(config.dataDir, opts.log ?? console);
  for (const w of config.env.warnings) log.warn(w);
  const repos = makeRepos(db);
  const org = await repos.orgs.ensureDefault();
  const apiKeyFile = await seedKeys(db, repos, org.id, config.dataDir, opts.apiKey);
  await repos.idempotency.releaseAllInFlight();
  await repos.idempotency.purgeOlderThan(IDEMPOTENCY_RETENTION_MS);
  await repos.sessions.purgeExpired();

  let baseUrl = '';
  const base: AppBase = {
    config,
    db,
    repos,
    log,
    serviceLog: log,
    limiter: new ConcurrencyLimiter(config.maxConcurrentPerOrg, config.maxStreamsPerOrg),
    billing: new Billing(repos.orgs, () => `${baseUrl}/#/settings/billing`),
    diskSpace: new DiskSpace(config.dataDir, log, opts.diskLowBytes),
    statusProviders: [],
    baseUrl: () => baseUrl,
  };
  // The first box waits for the guest image: its progress goes to GET /v1/status (preparation).
  const preparation = opts.preparation ?? (opts.runtime ? undefined : new PreparationTracker());
  const runtime = (
    opts.runtime ??
    ((dir) =>
      new QemuBoxRuntime(dir, {
        onImageProgress: (p) => preparation?.onImage(p),
        onTemplateBuild: (e) => preparation?.onTemplate(e),
        coldWhileTemplateBuilds: config.tuning.coldWhileTemplateBuilds,
        layeredImage: config.tuning.layeredImage ? { onProgress: (p) => preparation?.onCodeLayer(p) } : undefined,
        log,
      }))
  )(config.dataDir);
  if (preparation) showPreparation(base, runtime, preparation);
  base.diskSpace.start();
  base.statusProviders.push(() => ({ disk: base.diskSpace.status() }));
  const { app: ctx, areas } = await wire(base, runtime);
  const split = config.inferencePort !== undefined;
  const apps = createApp(ctx, areas, { splitInference: split, signIn: ctx.services.signIn });
  const server = await listen(createServer(config.tls, apps.main).on('upgrade', apps.upgrades.main.listener), config.port, config.host);
  baseUrl = baseUrlOf(config.tls, config.host, (server.address() as AddressInfo).port);
  lock.setUrl(baseUrl);
  let inferenceUrl = baseUrl;
  let infServer: http.Server | undefined;
  if (split && apps.inference) {
    infServer = await listen(createServer(config.tls, apps.inference).on('upgrade', apps.upgrades.inference!.listener), config.inferencePort!, config.host);
    inferenceUrl = baseUrlOf(config.tls, config.host, (infServer.address() as AddressInfo).port);
  }
  // the first line of logs/service.log, so the file is there from the start
  const took = `process up ${process.uptime().toFixed(1)} s, of which the database, wiring and listen ${Math.round(performance.now() - t0)} ms`;
  log.info(`service starting on ${baseUrl} (data dir ${config.dataDir}, pid ${process.pid}; ${took})`, {
    phase: 'start',
    pid: process.pid,
    duration_ms: Math.round(performance.now() - t0),
  });
  for (const a of areas) await a.start?.();

  return {
    ctx,
    url: baseUrl,
    inferenceUrl,
    apiKeyFile,
    routes: apps.registry.specs,
    loginUrl: async () => {
      const uiKey = (await repos.keys.list(org.id)).find((k) => k.name === UI_KEY_NAME)!;
      return `${baseUrl}/ui/login?token=${(await ctx.services.signIn.loginLink(uiKey.id)).token}`;
    },
    close: async () => {
      base.diskSpace.stop();
      for (const u of [apps.upgrades.main, apps.upgrades.inference]) u?.closeAll(); // WebSockets: the servers' close would wait for them
      for (const a of [...areas].reverse()) await a.stop?.();
      await Promise.all([server, infServer].filter(Boolean).map((s) => closeServer(s!)));
      await db.close();
      lock.release();
    },
  };
}

/** First start mints a key (hashed at rest, written once to <dataDir>/api-key, 0600). */
async function seedKeys(db: Db, repos: ReturnType<typeof makeRepos>, orgId: string, dataDir: string, envKey?: string): Promise<string> {
  const file = path.join(dataDir, API_KEY_FILE);
  await db.transaction(async () => {
    if (envKey && !(await repos.keys.hasSecret(envKey))) await repos.keys.create(orgId, 'seeded from BOX_API_KEY', 'organization', envKey);
    if (!(await repos.keys.list(orgId)).some((k) => k.name === UI_KEY_NAME)) await repos.keys.create(orgId, UI_KEY_NAME, 'organization');
    if (!envKey && !fs.existsSync(file) && (await repos.keys.countLiveOrgKeys(orgId)) <= 1) {
      const { secret } = await repos.keys.create(orgId, 'default', 'organization');
      fs.writeFileSync(file, `${secret}\n`, { mode: 0o600 });
    }
  });
  return file;
}

function listen(server: http.Server, port: number, host: string): Promise<http.Server> {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE'
          ? new Error(`Port ${port} on ${host} is in use by another program or service: choose another one (--port, --inference-port).`, { cause: e })
          : e,
      ),
    );
    server.listen(port, host, () => resolve(server));
  });
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
