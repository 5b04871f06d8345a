import type { AreaModule } from '../app-context.js';
import { EgressRepo, DEFAULT_EGRESS_LOG_KEEP } from './egress/egress-log-repo.js';
import { EgressService } from './egress/egress-service.js';
import { Ingress } from './ingress/ingress-server.js';
import { DomainService } from './listeners/domain-service.js';
import { ListenerService } from './listeners/listener-service.js';
import { ListenersRepo } from './listeners/listeners-repo.js';
import { networkRoutes } from './network-routes.js';
import { egressCaRoutes } from './tls/ca-routes.js';
import { guestTrust } from './tls/guest-trust.js';

declare module '../app-context.js' {
  interface Services {
    ingress: { port: number };
  }
}

/**
 * Box networking: the egress proxy (one loopback port per box, policy enforcement, egress
 * log), published ports with their host forwards, the ingress and custom domains.
 * Tuning: `ingressPort` (default 0: any free port), `egressLogKeep` (entries kept per box).
 */
export function networkModule(): AreaModule {
  let egress: EgressService | undefined;
  let ingress: Ingress | undefined;
  let listeners: ListenerService | undefined;
  return {
    name: 'network',
    async install(app, r) {
      const t = app.config.tuning;
      egress = new EgressService(app, new EgressRepo(app.db, Number(t.egressLogKeep ?? DEFAULT_EGRESS_LOG_KEEP)));
      const repo = new ListenersRepo(app.db);
      let ing: Ingress | undefined;
      const ingressPort = () => ing?.port ?? 0;
      const ls = new ListenerService(app, repo, ingressPort);
      listeners = ls;
      const domains = new DomainService(repo, ingressPort);
      ingress = ing = new Ingress(app, ls);
      await ingress.listen(Number(t.ingressPort ?? 0));
      await egress.init();
      const e = egress;
      app.services.boxes?.guestSetup.add(guestTrust(() => e.ca.info));
      egressCaRoutes(r, e);
      app.services.egress = { proxyPortFor: (boxId) => e.proxyPortFor(boxId) };
      app.services.listeners = {
        forwardsFor: (boxId) => ls.forwardsFor(boxId),
        onBoxStarted: (boxId) => {
          ls.onBoxStarted(boxId);
          const box = app.services.boxes?.repo.get(boxId);
          if (box) ls.publishIngressPorts(box);
        },
        onBoxGone: (boxId) => {
          repo.deleteBox(boxId);
          void e.forget(boxId).catch((err) => app.log.error('egress: closing proxy', err));
        },
      };
      app.services.ingress = { get port() { return ingressPort(); } };
      app.statusProviders.push(() => ({ ingress_url: `http://127.0.0.1:${ingressPort()}` }));
      networkRoutes(r, { listeners: ls, domains, egress });
    },
    async start() {
      await egress!.bindPersisted();
      await listeners!.reclaimTakenPorts();
    },
    async stop() {
      await Promise.all([egress?.close(), ingress?.close()]);
    },
  };
}
