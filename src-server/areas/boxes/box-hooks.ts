import { BoxHolds } from './box-holds.js';
import type { BoxRecord } from './boxes-repo.js';
import type { IngressUrls } from './box-view.js';
/** The networking of a box's VM, supplied by the network area (built after boxes). */
export interface BoxNetwork {
  /** Host loopback port → guest port forwards the VM starts with. */
  forwardsFor(boxId: string): Promise<{ hostPort: number; guestPort: number }[]>;
  /** The egress proxy port the VM reaches the outside through (none: no network). */
  proxyPortFor(boxId: string): Promise<number | undefined>;
}

/**
 * How areas built after boxes (network, cron) take part in a box's life without the boxes
 * area knowing them: the wiring hands them the BoxService and they register here. Hooks run
 * (awaited, in order) inside the box's lock and must not throw.
 */
/** The image names a box may be created from, supplied by the images area. */
interface BoxImages {
  names(): string[];
}

export class BoxHooks {
  /** Work in a box that is not an exec (a code cell): no auto-sleep meanwhile. */
  readonly holds = new BoxHolds();
  network: BoxNetwork = { forwardsFor: () => Promise.resolve([]), proxyPortFor: () => Promise.resolve(undefined) };
  /** The URL of each published port, supplied by the network area (ingress port and host names). */
  ingressUrls: IngressUrls = () => Promise.resolve([]);
  images: BoxImages = { names: () => ['debian'] };
  private started: ((box: BoxRecord) => unknown)[] = [];
  private gone: ((boxId: string) => unknown)[] = [];

  /** After every start, restore or clone, before the box is reported running. */
  onStarted(fn: (box: BoxRecord) => unknown): void {
    this.started.push(fn);
  }

  /** When a box is terminated, before its VM and disk are destroyed. */
  onGone(fn: (boxId: string) => unknown): void {
    this.gone.push(fn);
  }

  /** `box`: the record as the start found it (read under the lock; not yet `running`). */
  async boxStarted(box: BoxRecord): Promise<void> {
    for (const fn of this.started) await fn(box);
  }

  async boxGone(boxId: string): Promise<void> {
    for (const fn of this.gone) await fn(boxId);
  }
}
