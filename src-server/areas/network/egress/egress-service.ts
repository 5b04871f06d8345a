import type { AppBase } from '../../../platform/app-context.js';
import type { BoxLookup } from '../../boxes/ports.js';
import type { PolicyDocument } from '@box/contract/policies';
import type { PoliciesService } from '../../policies/ports.js';
import type { SecretsService } from '../../secrets/module.js';
import { BoxProxy } from './box-proxy.js';
import type { PolicyRef } from './decide.js';
import type { EgressRepo } from './egress-log-repo.js';
import type { ProxyDeps } from './proxy-deps.js';
import { CryptoBox } from '../../../kernel/util/crypto-box.js';
import { EgressCa } from '../tls/egress-ca.js';
import { upstreamAgents, upstreamRoots } from './upstream-tls.js';
import { InFlight } from '../../../kernel/util/in-flight.js';

/** Proxy ports bound ahead of need, so that proxyPortFor can answer synchronously. */
const SPARES = 6;

/**
 * The egress proxies of all boxes: one loopback port per box, the VM's only way out.
 * A box keeps its port while the service runs and, through egress_ports, across restarts
 * (a VM adopted after a restart still points at the old port).
 */
export class EgressService {
  private byBox = new Map<string, { proxy: BoxProxy; port: number }>();
  private spares: BoxProxy[] = [];
  private refilling?: Promise<void>;
  private closed = false;
  readonly deps: ProxyDeps;
  /** The install's CA (set by init); interception is on once it is. */
  ca!: EgressCa;
  /** Puts what boxes trust into running boxes again (the network area wires boxes/guest-refresh.ts). */
  onTrustChanged: () => Promise<{ updated: string[]; failed: string[] }> = () => Promise.resolve({ updated: [], failed: [] });
  private graceTimer: NodeJS.Timeout | undefined;

  constructor(
    private app: AppBase,
    readonly repo: EgressRepo,
    private dep: { boxes: BoxLookup; secrets: SecretsService; policies: Pick<PoliciesService, 'get'> },
  ) {
    this.deps = {
      policyFor: async (boxId) => await this.policyFor(boxId),
      secretFor: async (boxId, name) => {
        const box = await dep.boxes.get(boxId);
        return box ? await dep.secrets.resolve(box.org_id, name) : undefined;
      },
      log: repo,
      onError: (where, e) => app.log.error(where, e),
    };
  }

  /**
   * The accelerator that runs the boxes: under TCG their CPU model (runtime/qemu/vm-config.ts,
   * Nehalem) has no AES instructions, so the box leg of intercepted TLS prefers ChaCha20
   * (proxy-deps.ts, boxLegChaCha); with KVM/HVF (`-cpu host`) AES-128-GCM stays first.
   */
  setBoxAccelerator(accel: string) {
    this.deps.boxLegChaCha = accel === 'tcg';
  }

  /** The box's policy, read per request; a policy that vanished refuses everything (fail closed). */
  private async policyFor(boxId: string): Promise<PolicyRef | null> {
    const box = await this.dep.boxes.get(boxId);
    if (!box?.http_policy_id) return null;
    const p = await this.dep.policies.get(box.org_id, box.http_policy_id);
    if (!p) return { id: box.http_policy_id, name: '(missing policy)', document: {} };
    return { id: p.id, name: p.name, document: p.document as PolicyDocument };
  }

  /**
   * Opens (or creates, on first start) the egress CA, reads BOX_EGRESS_CA_FILE (extra
   * upstream roots: an unreadable file stops the start rather than weakening checks), binds
   * the live boxes' recorded proxy ports, and then the spare ones (a spare bound first, on a
   * port the system picks, could take a box's own port, just freed by the service's stop).
   */
  async init() {
    const { tuning, env } = this.app.config;
    this.ca = await EgressCa.open(this.app.db, () => CryptoBox.forDataDir(this.app.config.dataDir), tuning.egressCaGraceMs);
    this.armGraceTimer();
    const roots = upstreamRoots(tuning.egressCaFile ?? env.egressCaFile);
    this.deps.tlsCa = roots?.join('\n');
    this.deps.agents = upstreamAgents();
    this.deps.ca = this.ca;
    await this.bindPersisted();
    await this.refill();
  }

  /**
   * Rotates the CA and pushes the new trust into running boxes before answering: the new
   * CA plus the replaced one for its grace period (connections and processes that predate
   * the rotation keep verifying); when the grace ends the old one is taken out again.
   */
  async rotateCa() {
    const info = await this.ca.rotate();
    this.armGraceTimer();
    const pushed = await this.onTrustChanged();
    return { ...info, boxes_updated: pushed.updated.length, boxes_failed: pushed.failed };
  }

  /** Rewrites running boxes' trust when the next replaced CA's grace period ends. */
  private armGraceTimer() {
    clearTimeout(this.graceTimer);
    const end = this.ca.nextGraceEnd();
    if (end === undefined || this.closed) return;
    const fire = () =>
      void this.onTrustChanged()
        .catch((e) => this.app.log.error('egress: removing a replaced CA from boxes', e))
        .finally(() => this.armGraceTimer());
    this.graceTimer = setTimeout(fire, Math.min(Math.max(0, end - Date.now()) + 50, 2 ** 31 - 1)).unref();
  }

  private refill(): Promise<void> {
    this.refilling ??= (async () => {
      while (!this.closed && this.spares.length < SPARES) {
        const p = new BoxProxy(this.deps);
        await p.listen(0);
        if (this.closed) await p.close();
        else this.spares.push(p);
      }
    })()
      .catch((e) => this.app.log.error('egress: binding spare proxy ports failed', e))
      .finally(() => (this.refilling = undefined));
    return this.refilling;
  }

  /** Re-binds the persisted ports of live boxes (VMs adopted after a restart still use them) and forgets the rest. */
  async bindPersisted() {
    const live = new Set((await this.dep.boxes.live()).map((b) => b.box_id));
    for (const { box_id, port } of await this.repo.ports()) {
      if (!live.has(box_id)) await this.repo.dropPort(box_id);
      else if (!this.byBox.has(box_id)) await this.bindAt(box_id, port);
    }
  }

  private async bindAt(boxId: string, port: number) {
    const proxy = new BoxProxy(this.deps);
    proxy.boxId = boxId;
    this.byBox.set(boxId, { proxy, port });
    try {
      await proxy.listen(port);
    } catch (e) {
      this.app.log.error(`egress: port ${port} of box ${boxId} is taken (${(e as Error).message}); the box gets a new one at its next start`);
      if (this.byBox.get(boxId)?.proxy === proxy) this.byBox.delete(boxId);
      await this.repo.dropPort(boxId);
    }
  }

  /** Called when the box's VM (re)starts: its stable proxy port. */
  async proxyPortFor(boxId: string): Promise<number | undefined> {
    if (this.closed) return undefined;
    const known = this.byBox.get(boxId);
    if (known) return known.port;
    // One claim per box at a time: a second caller meanwhile would take another spare, find the
    // first one's port recorded, and fail to bind it (taken by the first: the row then dropped).
    return await this.claiming.run(boxId, () => this.claim(boxId));
  }

  private claiming = new InFlight<number | undefined>();

  private async claim(boxId: string): Promise<number | undefined> {
    const proxy = this.spares.shift();
    void this.refill();
    // One round trip: the port the box already has (a restart), else this spare's, recorded.
    const port = proxy?.port ? await this.repo.claimPort(boxId, proxy.port) : await this.repo.port(boxId);
    if (proxy && port && port === proxy.port) {
      proxy.boxId = boxId;
      this.byBox.set(boxId, { proxy, port });
      return port;
    }
    if (proxy) this.spares.unshift(proxy); // not needed: the box keeps its own
    if (port) {
      void this.bindAt(boxId, port);
      return port;
    }
    this.app.log.error(`egress: no proxy port ready for box ${boxId}; it starts without network`);
    return undefined;
  }

  /** The box is gone: its proxy stops and its log and port are forgotten. */
  async forget(boxId: string) {
    const known = this.byBox.get(boxId);
    this.byBox.delete(boxId);
    await this.repo.deleteBox(boxId);
    await known?.proxy.close();
  }

  async close() {
    this.closed = true;
    clearTimeout(this.graceTimer);
    await this.refilling;
    await Promise.all([...this.byBox.values()].map((b) => b.proxy.close()).concat(this.spares.map((p) => p.close())));
    this.byBox.clear();
    this.spares = [];
    this.deps.agents?.h1.close();
    await this.repo.flush();
  }
}
