import type { DesktopService } from '../desktop/module.js';
import path from 'node:path';
import type { AppBase } from '../../platform/app-context.js';
import type { Area } from '../../platform/area.js';
import type { BoxService } from '../boxes/module.js';
import type { UsageService } from '../usage/ports.js';
import type { Db } from '../../platform/db/connection.js';
import { CryptoBox } from '../../kernel/util/crypto-box.js';
import { responseObject } from './adapters/responses-view.js';
import { BackgroundQueue } from './background/queue.js';
import type { BoxCredentials } from './box/box-credentials.js';
import { boxPrincipalResolver } from './box/box-principal.js';
import { budgetRoutes } from './box/budget-routes.js';
import { DEFAULT_CATALOG } from './catalog/catalog.js';
import { catalogRoutes } from './catalog/catalog-routes.js';
import { ModelPulls } from './catalog/pulls.js';
import { PullsRepo } from './catalog/pulls-repo.js';
import { EngineDiscovery } from './engines/discovery.js';
import { EnginesService } from './engines/engines-service.js';
import type { OrganizationService } from '../../identity/module.js';
import { ModelDownloads } from './engines/local/downloads.js';
import { LlamaEngine } from './engines/local/llama-engine.js';
import { ModelFiles } from './engines/local/model-files.js';
import { EngineRegistry } from './engines/registry.js';
import { InferenceSettingsRepo } from './store/settings-repo.js';
import { chatRoutes } from './routes/chat-routes.js';
import { enginesRoutes } from './routes/engines-routes.js';
import { localModelsRoutes } from './routes/local-models-routes.js';
import { messagesRoutes } from './routes/messages-routes.js';
import { modelsRoutes } from './routes/models-routes.js';
import { responsesRoutes } from './routes/responses-routes.js';
import { responsesWsRoutes } from './routes/responses-ws.js';
import { embeddingsRoutes } from './routes/embeddings-routes.js';
import { EmbeddingsService } from './embeddings.js';
import { InferenceService } from './inference-service.js';
import { DownloadsRepo } from './store/downloads-repo.js';
import { EnginesRepo } from './store/engines-repo.js';
import { ResponsesRepo } from './store/responses-repo.js';
import { openFastConnection } from '../../platform/db/fast-connection.js';
import { DeliveriesRepo } from './webhooks/deliveries-repo.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { WebhookDeliveriesService } from './webhooks/deliveries-service.js';
import { webhookRoutes } from './webhooks/webhooks-routes.js';
import { scheduleFrom } from './webhooks/schedule.js';
import type { BoxAccess } from '../boxes/ports.js';
import type { ExecService } from '../boxes/module.js';
import type { CodeService } from '../code/module.js';
import type { AppsService } from '../../identity/module.js';
import { hostedBoxPort } from './hosted/box-port.js';
import { HostedLoop } from './hosted/hosted-loop.js';
import { HostedReaper } from './hosted/hosted-reaper.js';

/**
 * Tuning keys (ctx.config.tuning, typed in settings.ts), mostly for tests: `webhookSchedule` (webhooks/schedule.ts),
 * `llama` (LlamaTuning), `backgroundConcurrency`, `backgroundStopWaitMs`, `upstreamTimeoutMs`,
 * `structuredAttempts`, `modelCatalog` (CatalogEntry[]), `engineDiscovery` (false, or
 * DiscoveryOptions such as `{ probes }`). Discovery is off under vitest unless a test passes
 * `engineDiscovery` (shared machine: another session's server on 8080 must not change a
 * test's model list), and off when the environment says BOX_ENGINE_DISCOVERY=0.
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
  discovery: EngineDiscovery;
  pulls: ModelPulls;
  /** Resolves a box's egress-proxy credential into its principal (inference routes only). */
  boxPrincipal: ReturnType<typeof boxPrincipalResolver>;
  fastDb: Db;
  maxRounds: number;
  /** Terminates idle boxes made by hosted tools (BOX_HOSTED_BOX_TTL). */
  hostedReaper: HostedReaper;
}

/** Default seconds a hosted tool's `auto` box may stay idle (BOX_HOSTED_BOX_TTL). */
const HOSTED_BOX_TTL_S = 1200;

const MODELS_DIR = 'models';

interface InferenceDeps {
  usage: UsageService;
  boxes: BoxService;
  credentials: BoxCredentials;
  /** Each organization's webhook signing secret. */
  organization: Pick<OrganizationService, 'get'>;
  access: BoxAccess;
  /** Hosted tools (code_interpreter, shell, code execution) run in boxes: exec, the code interpreter, the `hosted-tools` app. */
  execs: ExecService;
  code: CodeService;
  apps: AppsService;
  /** The computer tool (issue 37) drives desktop boxes' screens. */
  desktop: Pick<DesktopService, 'act' | 'screenshot' | 'settledScreenshot'>;
}

function build(app: AppBase, deps: InferenceDeps): InferenceArea {
  const t = app.config.tuning;
  const box = CryptoBox.forDataDir(app.config.dataDir);
  const schedule = scheduleFrom(t.webhookSchedule);
  const responses = new ResponsesRepo(app.db);
  const deliveries = new DeliveriesRepo(app.db, box);
  const files = new ModelFiles(path.join(app.config.dataDir, MODELS_DIR));
  const local = new LlamaEngine(files, t.llama, app.log);
  const enginesRepo = new EnginesRepo(app.db, box);
  const engines = new EngineRegistry(local, enginesRepo, t.upstreamTimeoutMs, app.log);
  const dispatcher = new WebhookDispatcher(
    deliveries,
    schedule,
    async (id, orgId) => {
      const stored = await responses.get(id);
      const org = await deps.organization.get(orgId);
      return stored && org ? { body: JSON.stringify(responseObject(stored)), secret: org.webhook_secret } : null;
    },
    app.log,
  );
  const fastDb = openFastConnection(app.config.dataDir, app.db);
  const fast = { db: fastDb, responses: new ResponsesRepo(fastDb), deliveries: new DeliveriesRepo(fastDb, box) };
  const service = new InferenceService(
    app,
    engines,
    responses,
    deliveries,
    { webhooksChanged: () => dispatcher.kick(), queued: async () => await queue.kick() },
    schedule.maxRounds,
    t.structuredAttempts,
    fast,
    { boxes: deps.boxes, usage: deps.usage },
  );
  const queue = new BackgroundQueue(responses, (id) => service.runStored(id), t.backgroundConcurrency);
  const downloads = new ModelDownloads(files, new DownloadsRepo(app.db));
  const d = t.engineDiscovery;
  const allowed = d !== false && app.config.env.engineDiscovery !== false && !(d === undefined && app.config.env.underTests);
  const discovery = new EngineDiscovery(engines, new InferenceSettingsRepo(app.db), { ...(d || {}), allowed }, app.log);
  const pulls = new ModelPulls(files, new PullsRepo(app.db), t.modelCatalog ?? DEFAULT_CATALOG, app.log);
  const boxPrincipal = boxPrincipalResolver(deps.credentials, deps.boxes);
  const hostedBoxes = hostedBoxPort({
    boxes: deps.boxes,
    execs: deps.execs,
    code: deps.code,
    access: deps.access,
    apps: deps.apps,
    desktop: deps.desktop,
  });
  const ttlS = app.config.env.hostedToolBoxTtl ?? HOSTED_BOX_TTL_S;
  service.hosted = new HostedLoop(hostedBoxes, t.hostedMaxCalls, async (id) => (await service.get(id))?.result?.containerId, ttlS, app.log);
  const hostedReaper = new HostedReaper(hostedBoxes, ttlS, app.log);
  return {
    service,
    engines,
    local,
    dispatcher,
    queue,
    downloads,
    deliveries,
    enginesRepo,
    discovery,
    pulls,
    boxPrincipal,
    fastDb,
    maxRounds: schedule.maxRounds,
    hostedReaper,
  };
}

/** The inference API (spec, Inference API and Events) and engine management; tokens are charged through usage. */
export function inferenceArea(app: AppBase, deps: InferenceDeps) {
  const inference = build(app, deps);
  app.statusProviders.push(() => ({ engines: inference.engines.status() }));
  const area: Area = {
    name: 'inference',
    routes(r) {
      responsesRoutes(r, inference.service);
      responsesWsRoutes(r, inference.service);
      embeddingsRoutes(r, new EmbeddingsService(inference.engines, inference.service, { boxes: deps.boxes, usage: deps.usage }, app.log));
      chatRoutes(r, inference.service);
      messagesRoutes(r, inference.service);
      modelsRoutes(r, inference.engines);
      webhookRoutes(
        r,
        new WebhookDeliveriesService({
          getResponse: async (id) => {
            await inference.service.writer.settle(id); // the delivery log below reads the database
            return await inference.service.get(id);
          },
          deliveries: inference.deliveries,
          rounds: inference.maxRounds,
          changed: () => inference.dispatcher.kick(),
        }),
        deps.organization,
      );
      enginesRoutes(r, new EnginesService(inference.engines, inference.enginesRepo, inference.discovery));
      localModelsRoutes(r, inference.local, inference.downloads);
      catalogRoutes(r, inference.pulls);
      budgetRoutes(r, { usage: deps.usage, boxes: deps.boxes, access: deps.access });
    },
    async start() {
      await inference.engines.reload();
      // Charged just after the answer leaves: the usage write must not delay it.
      inference.service.usageListeners.push((e) =>
        setImmediate(() =>
          deps.usage.recordTokens(e.orgId, { model: e.model, inputTokens: e.usage.inputTokens, outputTokens: e.usage.outputTokens, boxId: e.boxId }),
        ),
      );
      await inference.downloads.start();
      inference.discovery.start();
      await inference.pulls.start();
      await inference.queue.start();
      inference.dispatcher.start();
      inference.hostedReaper.start();
    },
    async stop() {
      inference.downloads.stop();
      inference.hostedReaper.stop();
      inference.discovery.stop();
      inference.pulls.stop();
      await inference.dispatcher.stop();
      await inference.queue.stop(app.config.tuning.backgroundStopWaitMs);
      await inference.engines.close();
      await inference.service.writer.flush();
      if (inference.fastDb !== app.db) await inference.fastDb.close();
    },
  };
  return { inference, area };
}
export { HmacBoxCredentials } from './box/box-credentials.js';
export type { BoxCredentials } from './box/box-credentials.js';
