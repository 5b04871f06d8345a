import path from 'node:path';
import type { AppBase, Area } from '../app-context.js';
import type { UsageService } from '../usage/usage-service.js';
import type { Db } from '../db/connection.js';
import { CryptoBox } from '../util/crypto-box.js';
import { responseObject } from './adapters/responses-view.js';
import { BackgroundQueue } from './background/queue.js';
import { ModelDownloads } from './engines/local/downloads.js';
import { LlamaEngine, type LlamaTuning } from './engines/local/llama-engine.js';
import { ModelFiles } from './engines/local/model-files.js';
import { EngineRegistry } from './engines/registry.js';
import { chatRoutes } from './routes/chat-routes.js';
import { enginesRoutes } from './routes/engines-routes.js';
import { localModelsRoutes } from './routes/local-models-routes.js';
import { messagesRoutes } from './routes/messages-routes.js';
import { modelsRoutes } from './routes/models-routes.js';
import { responsesRoutes } from './routes/responses-routes.js';
import { InferenceService } from './service.js';
import { DownloadsRepo } from './store/downloads-repo.js';
import { EnginesRepo } from './store/engines-repo.js';
import { ResponsesRepo } from './store/responses-repo.js';
import { openFastConnection } from './store/fast-connection.js';
import { DeliveriesRepo } from './webhooks/deliveries-repo.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { webhookRoutes } from './webhooks/routes.js';
import { scheduleFrom } from './webhooks/schedule.js';

/**
 * Tuning keys (ctx.config.tuning), mostly for tests: `webhookSchedule` (webhooks/schedule.ts),
 * `llama` (LlamaTuning), `backgroundConcurrency`, `backgroundStopWaitMs`, `upstreamTimeoutMs`,
 * `structuredAttempts`.
 */
export interface InferenceArea {
  service: InferenceService;
  engines: EngineRegistry;
  local: LlamaEngine;
  dispatcher: WebhookDispatcher;
  queue: BackgroundQueue;
  downloads: ModelDownloads;
  deliveries: DeliveriesRepo;
  enginesRepo: EnginesRepo;
  fastDb: Db;
  maxRounds: number;
}

const MODELS_DIR = 'models';

function build(app: AppBase): InferenceArea {
  const t = app.config.tuning;
  const box = CryptoBox.forDataDir(app.config.dataDir);
  const schedule = scheduleFrom(t.webhookSchedule);
  const responses = new ResponsesRepo(app.db);
  const deliveries = new DeliveriesRepo(app.db, box);
  const files = new ModelFiles(path.join(app.config.dataDir, MODELS_DIR));
  const local = new LlamaEngine(files, (t.llama as LlamaTuning | undefined) ?? {}, app.log);
  const enginesRepo = new EnginesRepo(app.db, box);
  const engines = new EngineRegistry(local, enginesRepo, (t.upstreamTimeoutMs as number | undefined) ?? 600_000, app.log);
  const dispatcher = new WebhookDispatcher(
    deliveries,
    schedule,
    (id, orgId) => {
      const stored = responses.get(id);
      const org = app.repos.orgs.get(orgId);
      return stored && org ? { body: JSON.stringify(responseObject(stored)), secret: org.webhook_secret } : null;
    },
    app.log,
  );
  const fastDb = openFastConnection(app.config.dataDir);
  const fast = { db: fastDb, responses: new ResponsesRepo(fastDb), deliveries: new DeliveriesRepo(fastDb, box) };
  const service = new InferenceService(
    app,
    engines,
    responses,
    deliveries,
    { webhooksChanged: () => dispatcher.kick(), queued: () => queue.kick() },
    schedule.maxRounds,
    (t.structuredAttempts as number | undefined) ?? 2,
    fast,
  );
  const queue = new BackgroundQueue(responses, (id) => service.runStored(id), (t.backgroundConcurrency as number | undefined) ?? 4);
  const downloads = new ModelDownloads(files, new DownloadsRepo(app.db));
  return { service, engines, local, dispatcher, queue, downloads, deliveries, enginesRepo, fastDb, maxRounds: schedule.maxRounds };
}

/** The inference API (spec, Inference API and Events) and engine management; tokens are charged through usage. */
export function inferenceArea(app: AppBase, deps: { usage: UsageService }) {
  const inference = build(app);
  app.statusProviders.push(() => ({ engines: inference.engines.status() }));
  const area: Area = {
    name: 'inference',
    routes(r) {
      responsesRoutes(r, inference.service);
      chatRoutes(r, inference.service);
      messagesRoutes(r, inference.service);
      modelsRoutes(r, inference.engines);
      webhookRoutes(r, {
        getResponse: (id) => inference.service.get(id),
        deliveries: inference.deliveries,
        rounds: inference.maxRounds,
        changed: () => inference.dispatcher.kick(),
      });
      enginesRoutes(r, inference.engines, inference.enginesRepo);
      localModelsRoutes(r, inference.local, inference.downloads);
    },
    start() {
      // Charged just after the answer leaves: the usage write must not delay it.
      inference.service.usageListeners.push((e) =>
        setImmediate(() => deps.usage.recordTokens(e.orgId, { model: e.model, inputTokens: e.usage.inputTokens, outputTokens: e.usage.outputTokens })),
      );
      inference.downloads.start();
      inference.queue.start();
      inference.dispatcher.start();
    },
    async stop() {
      inference.downloads.stop();
      await inference.dispatcher.stop();
      await inference.queue.stop((app.config.tuning.backgroundStopWaitMs as number | undefined) ?? 5000);
      await inference.engines.close();
      inference.fastDb.close();
    },
  };
  return { inference, area };
}
