import type { AppBase } from '../../app-context.js';
import type { BoxService } from '../../boxes/module.js';
import type { BoxRecord } from '../../boxes/ports.js';
import { MAX_LISTENERS_PER_BOX, type CreateListenerBody, type Listener } from '../../contract/network.js';
import { conflict, invalid, notFound, Unavailable } from '../../core/domain-errors.js';
import { canBind, freeLoopbackPort } from './free-port.js';
import type { ListenersRepo, ListenerRow } from './listeners-repo.js';

export const INGRESS_SUFFIX = '.box.localhost';

/**
 * Published ports. Each listener owns a stable host loopback port (listeners.host_port),
 * forwarded by QEMU to the guest port: live through the runtime when the VM runs, and from
 * VmConfig.forwards (forwardsFor) at every start. Both kinds are reachable on that port by
 * any client (`public_url`); `http` listeners are also served by the ingress under
 * `<box-name>.box.localhost` (`alias_url`, which wakes a sleeping box).
 */
export class ListenerService {
  /** Added while the VM ran but the runtime cannot forward live: effective at the next start. */
  private pending = new Set<string>();

  constructor(
    private app: AppBase,
    private boxes: BoxService,
    readonly repo: ListenersRepo,
    private ingressPort: () => number,
  ) {}

  async forwardsFor(boxId: string) {
    return (await this.repo.list(boxId)).map((l) => ({ hostPort: l.host_port, guestPort: l.guest_port }));
  }

  onBoxStarted(boxId: string) {
    for (const k of this.pending) if (k.startsWith(`${boxId}:`)) this.pending.delete(k);
  }

  /**
   * A box's create-time `ingress_ports` become http listeners at its first start (queued
   * behind the boot, which holds the box lock). Later starts leave listeners as they are.
   */
  publishIngressPorts(box: BoxRecord) {
    if (box.started_at || !box.ingress_ports.length) return;
    void (async () => {
      for (const guest_port of box.ingress_ports) {
        if (!(await this.repo.get(box.box_id, guest_port))) await this.create(box, { guest_port, protocol: 'http' });
      }
    })().catch((e) => this.app.log.warn(`publishing ingress_ports of ${box.box_id}`, e));
  }

  /**
   * On service start: a box without a VM whose listener's host port was taken meanwhile
   * (by another program) would fail to start with it, so that listener moves to a free port.
   */
  async reclaimTakenPorts() {
    const boxes = this.boxes;
    for (const l of await this.repo.all()) {
      const box = await boxes.get(l.box_id);
      if (!box || box.status === 'running' || box.status === 'terminated' || (await canBind(l.host_port))) continue;
      const port = await freeLoopbackPort(await this.repo.hostPorts());
      await this.repo.setHostPort(l.box_id, l.guest_port, port);
      this.app.log.warn(`listener ${l.box_id}:${l.guest_port}: host port ${l.host_port} is taken; moved to ${port}`);
    }
  }

  /** The http listener `<name>.box.localhost` routes to: the box's first one. */
  async primaryHttp(boxId: string): Promise<ListenerRow | undefined> {
    return (await this.repo.list(boxId)).find((l) => l.protocol === 'http');
  }

  /**
   * The ingress URL of each of a box's create-time `ingress_ports`: the box's first http
   * listener (before its first start: the first port) answers at `<name>.box.localhost`,
   * the others at `<port>.<name>.box.localhost` (ingress-routing.ts).
   */
  async ingressUrls(box: BoxRecord): Promise<{ guest_port: number; url: string }[]> {
    if (!box.ingress_ports.length) return [];
    const primary = (await this.primaryHttp(box.box_id))?.guest_port ?? box.ingress_ports[0];
    return box.ingress_ports.map((p) => ({
      guest_port: p,
      url: `http://${p === primary ? '' : `${p}.`}${box.name}${INGRESS_SUFFIX}:${this.ingressPort()}/`,
    }));
  }

  async toListener(box: BoxRecord, l: ListenerRow): Promise<Listener> {
    const key = `${box.box_id}:${l.guest_port}`;
    const route_status = box.status === 'running' && !this.pending.has(key) ? 'active' : 'inactive';
    if (l.protocol === 'tcp') {
      return {
        guest_port: l.guest_port,
        protocol: 'tcp',
        route_status,
        public_url: `tcp://127.0.0.1:${l.host_port}`,
        public_host: '127.0.0.1',
        public_port: l.host_port,
        alias_url: null,
        created_at: l.created_at,
      };
    }
    const primary = (await this.primaryHttp(box.box_id))?.guest_port === l.guest_port;
    const alias = `${primary ? '' : `${l.guest_port}.`}${box.name}${INGRESS_SUFFIX}`;
    return {
      guest_port: l.guest_port,
      protocol: 'http',
      route_status,
      public_url: `http://127.0.0.1:${l.host_port}/`,
      public_host: '127.0.0.1',
      public_port: l.host_port,
      alias_url: `http://${alias}:${this.ingressPort()}/`,
      created_at: l.created_at,
    };
  }

  async list(box: BoxRecord): Promise<Listener[]> {
    return await Promise.all((await this.repo.list(box.box_id)).map((l) => this.toListener(box, l)));
  }

  async create(box: BoxRecord, body: CreateListenerBody): Promise<Listener> {
    if (await this.repo.get(box.box_id, body.guest_port))
      throw conflict(`Guest port ${body.guest_port} of box ${box.box_id} is already published.`, 'already_exists', 'guest_port');
    if ((await this.repo.list(box.box_id)).length >= MAX_LISTENERS_PER_BOX)
      throw invalid(`A box publishes at most ${MAX_LISTENERS_PER_BOX} ports.`, 'guest_port');
    const hostPort = await freeLoopbackPort(await this.repo.hostPorts());
    const boxes = this.boxes;
    return boxes.withLock(box.box_id, async () => {
      if (await this.repo.get(box.box_id, body.guest_port))
        throw conflict(`Guest port ${body.guest_port} of box ${box.box_id} is already published.`, 'already_exists', 'guest_port');
      const row: ListenerRow = {
        box_id: box.box_id,
        guest_port: body.guest_port,
        protocol: body.protocol,
        host_port: hostPort,
        created_at: new Date().toISOString(),
      };
      await this.repo.insert(row);
      const cur = (await boxes.get(box.box_id))!;
      if (cur.status === 'running') {
        const rt = boxes.forwards;
        if (!rt.addForward) this.pending.add(`${box.box_id}:${body.guest_port}`);
        else {
          try {
            await rt.addForward(box.box_id, hostPort, body.guest_port);
          } catch (e) {
            await this.repo.delete(box.box_id, body.guest_port);
            throw new Unavailable(`Publishing guest port ${body.guest_port} failed: ${(e as Error).message}`);
          }
        }
      }
      return await this.toListener(cur, row);
    });
  }

  async remove(box: BoxRecord, guestPort: number): Promise<Listener> {
    const boxes = this.boxes;
    return boxes.withLock(box.box_id, async () => {
      const row = await this.repo.get(box.box_id, guestPort);
      if (!row) throw notFound(`Guest port ${guestPort} of box ${box.box_id} is not published.`, null, 'guest_port');
      const cur = (await boxes.get(box.box_id))!;
      const out = await this.toListener(cur, row);
      await this.repo.delete(box.box_id, guestPort);
      const key = `${box.box_id}:${guestPort}`;
      this.pending.delete(key);
      if (cur.status === 'running') {
        await boxes.forwards.removeForward?.(box.box_id, row.host_port).catch((e) => this.app.log.warn(`unpublishing ${key}`, e));
      }
      return { ...out, route_status: 'inactive' as const };
    });
  }
}
