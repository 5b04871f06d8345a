import type { Logger } from '../../app-context.js';
import type { BoxOperation } from '../../contract/transitions.js';
import { conflict, Unavailable } from '../../core/domain-errors.js';
import type { BoxRecord } from '../boxes-repo.js';
import type { BoxRuntime, GuestAgent, VmConfig } from '../runtime-port.js';

/** What BoxService (the owner of the box lock) hands the maintenance VMs it builds. */
interface MaintenanceCore {
  runtime: Pick<BoxRuntime, 'isAlive' | 'coldBoot' | 'stop' | 'agent'>;
  withLock<T>(boxId: string, fn: () => Promise<T>): Promise<T>;
  fresh(box: BoxRecord, op: BoxOperation): Promise<BoxRecord>;
  vmConfig(box: BoxRecord): Promise<VmConfig>;
  get(boxId: string): Promise<BoxRecord | undefined>;
}

/** A maintenance VM nobody used for this long is stopped (its disk stays as the calls left it). */
const MAINTENANCE_IDLE_MS = 60_000;

interface Vm {
  inFlight: number;
  timer?: NodeJS.Timeout;
}

/**
 * Issue 28: a `failed` box keeps its disk reachable. File calls on a failed box are served
 * by a maintenance VM: the box's own disk booted cold (no restore of its memory, no guest
 * set-up, no published ports), its agent answering the calls, while the box stays `failed`.
 * Writes go through the agent (fsync'd before the answer) onto the disk the box will boot
 * from, so they are kept and the disk stays bootable. The VM is stopped when idle, when the
 * service stops, and by any operation that starts or ends the box (reboot, terminate: both
 * stop whatever VM the box has first). Measured against reading the disk on the host
 * (debugfs on a raw view of the qcow2 chain): /work/wt/figures/rel.md.
 */
export class MaintenanceVms {
  private vms = new Map<string, Vm>();

  constructor(
    private boxes: MaintenanceCore,
    private log: Logger,
    private idleMs = MAINTENANCE_IDLE_MS,
  ) {}

  /** Runs `use` with the agent of the failed box's maintenance VM (started on first use); `use` resolves when the call is over. */
  async with<T>(box: BoxRecord, use: (agent: GuestAgent, done: () => void) => Promise<T>): Promise<T> {
    const vm = await this.boxes.withLock(box.box_id, async () => {
      const cur = await this.boxes.fresh(box, 'files');
      if (cur.status !== 'failed') throw conflict(`Box ${box.box_id} is ${cur.status} now, not failed: retry the call.`, 'failed_precondition');
      let v = this.vms.get(box.box_id);
      if (!v || !(await this.boxes.runtime.isAlive(box.box_id))) {
        const t0 = Date.now();
        try {
          await this.boxes.runtime.coldBoot({ ...(await this.boxes.vmConfig(cur)), forwards: [], files: undefined });
        } catch (e) {
          await this.boxes.runtime.stop(box.box_id).catch(() => {});
          this.vms.delete(box.box_id);
          throw new Unavailable(
            `Box ${box.box_id} is failed and its disk did not boot for maintenance (${(e as Error).message}); fork it from its last checkpoint instead.`,
          );
        }
        v = { inFlight: 0 };
        this.vms.set(box.box_id, v);
        this.log.info(`box ${box.box_id} (${cur.name}): maintenance VM started from its disk for file calls in ${Date.now() - t0} ms (the box stays failed)`, {
          box_id: box.box_id,
          phase: 'maintenance',
          duration_ms: Date.now() - t0,
        });
      }
      clearTimeout(v.timer);
      v.inFlight++;
      return v;
    });
    let ended = false;
    const done = () => {
      if (ended) return;
      ended = true;
      vm.inFlight--;
      if (!vm.inFlight) vm.timer = setTimeout(() => void this.endIdle(box.box_id, vm), this.idleMs).unref();
    };
    try {
      return await use(await this.boxes.runtime.agent(box.box_id), done);
    } catch (e) {
      done();
      throw e;
    }
  }

  private async endIdle(boxId: string, vm: Vm) {
    await this.boxes.withLock(boxId, async () => {
      if (this.vms.get(boxId) !== vm || vm.inFlight) return;
      this.vms.delete(boxId);
      // a reboot or terminate since then owns the box's VM now
      if ((await this.boxes.get(boxId))?.status !== 'failed') return;
      await this.boxes.runtime.stop(boxId).catch((e: unknown) => this.log.warn(`box ${boxId}: stopping its maintenance VM: ${(e as Error).message}`));
      this.log.info(`box ${boxId}: maintenance VM stopped (idle ${Math.round(this.idleMs / 1000)} s)`, { box_id: boxId, phase: 'maintenance' });
    });
  }

  /** On service stop: no maintenance VM outlives the service. */
  async stopAll(): Promise<void> {
    const ids = [...this.vms.keys()];
    for (const v of this.vms.values()) clearTimeout(v.timer);
    this.vms.clear();
    await Promise.all(ids.map(async (id) => ((await this.boxes.get(id))?.status === 'failed' ? this.boxes.runtime.stop(id).catch(() => {}) : undefined)));
  }
}
