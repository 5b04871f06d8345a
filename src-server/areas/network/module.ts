import type { AppBase } from '../../platform/app-context.js';
import type { Area } from '../../platform/area.js';
import type { BoxService } from '../boxes/module.js';
import { refreshGuestFiles } from '../boxes/module.js';
import type { PoliciesService } from '../policies/ports.js';
import type { SecretsService } from '../secrets/module.js';
import { openFastConnection } from '../../platform/db/fast-connection.js';
import { EgressRepo } from './egress/egress-log-repo.js';
import { EgressService } from './egress/egress-service.js';
import { EgressLogService } from './egress-log-service.js';
import { Ingress } from './ingress/ingress-server.js';
import { DomainService } from './listeners/domain-service.js';
import { ListenerService } from './listeners/listener-service.js';
import { ListenersRepo } from './listeners/listeners-repo.js';
import { networkRoutes } from './network-routes.js';
import { HmacBoxCredentials } from '../inference/ports.js';
import { gatewayAuth } from './egress/gateway-auth.js';
import { HOST_INTERNAL } from './egress/upstream.js';
import { egressCaRoutes } from './tls/ca-routes.js';
import { guestTrust } from './tls/guest-trust.js';
import type { BoxAccess } from '../boxes/ports.js';

/**
 * Box networking: the egress proxy (one loopback port per box, policy enforcement, egress
 * log), published ports with their host forwards, the ingress and custom domains. It plugs
 * into the boxes area through `boxes.hooks`. The ingress listens and spare proxy ports are
 * bound while building (before the service listens).
 * Tuning (settings.ts): `ingressPort` (default 0: any free port), `egressLogKeep` (entries kept per box).
 */
export async function networkArea(
  app: AppBase,
  deps: { boxes: BoxService; secrets: SecretsService; policies: Pick<PoliciesService, 'get'>; access: BoxAccess },
) {
  const t = app.config.tuning;
  const { boxes } = deps;
  // The log and the ports on the NORMAL-sync connection: no fsync on the proxy's path (egress-log-repo.ts).
  const egressDb = openFastConnection(app.config.dataDir, app.db);
  const egressRepo = new EgressRepo(egressDb, t.egressLogKeep);
  const egress = new EgressService(app, egressRepo, {
    boxes,
    secrets: deps.secrets,
    policies: deps.policies,
  });
  const repo = new ListenersRepo(app.db);
  const ingressPort = (): number => ingress.port;
  const listeners = new ListenerService(app, boxes, repo, ingressPort);
  const domains = new DomainService(repo, ingressPort);
  const ingress = new Ingress(app, boxes, listeners);
  await ingress.listen(t.ingressPort);
  await egress.init();
  boxes.guestSetup.add(guestTrust(() => egress.ca.trusted()));
  egress.onTrustChanged = async () => await refreshGuestFiles(boxes, app.log);
  // In-box inference: the gateway through the box's proxy, with a key bound to the box.
  const creds = HmacBoxCredentials.forDataDir(app.config.dataDir);
  const gatewayPort = () => app.config.inferencePort || Number(new URL(app.baseUrl()).port) || undefined;
  egress.deps.gateway = gatewayAuth(creds, gatewayPort);
  boxes.guestSetup.add((box) => {
    const port = gatewayPort();
    if (!port) return {};
    const token = creds.tokenFor(box.box_id);
    const base = `http://${HOST_INTERNAL}:${port}`;
    return { env: { OPENAI_BASE_URL: `${base}/v1`, OPENAI_API_KEY: token, ANTHROPIC_BASE_URL: base, ANTHROPIC_API_KEY: token } };
  });
  boxes.hooks.network = { forwardsFor: async (boxId) => await listeners.forwardsFor(boxId), proxyPortFor: async (boxId) => await egress.proxyPortFor(boxId) };
  boxes.hooks.ingressUrls = async (box) => await listeners.ingressUrls(box);
  boxes.hooks.onStarted((box) => {
    listeners.onBoxStarted(box.box_id);
    listeners.publishIngressPorts(box);
  });
  boxes.hooks.onGone(async (boxId) => {
    await repo.deleteBox(boxId);
    void egress.forget(boxId).catch((err) => app.log.error('egress: closing proxy', err));
  });
  app.statusProviders.push(() => ({ ingress_url: `http://127.0.0.1:${ingressPort()}` }));
  const area: Area = {
    name: 'network',
    routes(r) {
      networkRoutes(r, { listeners, domains, egressLog: new EgressLogService(egressRepo), access: deps.access });
      egressCaRoutes(r, egress);
    },
    async start() {
      await listeners.reclaimTakenPorts(); // (the egress ports were bound by egress.init)
    },
    async stop() {
      await Promise.all([egress.close(), ingress.close()]);
      if (egressDb !== app.db) await egressDb.close();
    },
  };
  return {
    egress,
    listeners,
    ingress: {
      get port() {
        return ingressPort();
      },
      /** What a box's E2B getHost addresses want (its traffic token, its Host mask); the E2B area answers it. */
      set sandboxTraffic(fn: NonNullable<Ingress['sandboxTraffic']>) {
        ingress.sandboxTraffic = fn;
      },
      /** Resumes a paused box on its traffic (E2B's autoResume); the E2B area answers it. */
      set autoResume(fn: (boxId: string) => Promise<boolean>) {
        ingress.autoResume = fn;
      },
    },
    area,
  };
}
export type { EgressService } from './egress/egress-service.js';
export type { ListenerService } from './listeners/listener-service.js';
