import type { AppBase } from '../../../platform/app-context.js';
import { newBox, type NewBox } from './new-box.js';
import type { Box, BoxStatus, CreateBoxBody } from '@box/contract/boxes';
import type { AppsService } from '../../../identity/module.js';
import type { Principal } from '../../../kernel/principal.js';
import { Failed, Unavailable } from '../../../kernel/domain-errors.js';
import { checkCreate, insertBeside, newBoxRecord } from '../box-create.js';
import { ActivityStamps } from './activity-stamps.js';
import { BoxesRepo, type BoxRecord } from '../boxes-repo.js';
import { reconcileBoxes } from '../reconcile.js';
import { toBox } from '../box-view.js';
import type { BoxRuntime, GuestAgent, ImageResolver, StartResult, TemplateWarmup, VmConfig } from '../runtime-port.js';
import { GuestSetupRegistry, writeGuestFiles } from '../guest-setup.js';
import { BoxHooks } from '../box-hooks.js';
import type { BoxForwards, BoxMeters } from '../ports.js';
import type { VolumesService } from '../../volumes/ports.js';
import type { PoliciesService } from '../../policies/ports.js';
import { assertAccepts } from '../transitions.js';
import { KeyedLock } from './box-lock.js';
import { CheckpointService } from './checkpoint-service.js';
import { MaintenanceVms } from './maintenance.js';
import { boxVmConfig } from './vm-config.js';

/** A terminated box stays readable (status `terminated`) this long, then it is purged. */
const TERMINATED_KEPT_MS = 24 * 3600 * 1000;

/** What the box lifecycle uses of other areas. */
export interface BoxServiceDeps {
  repo: BoxesRepo;
  /** Where activity stamps (auto-sleep) are written: the fast connection (platform/db/fast-connection.ts); default `repo`. */
  activity?: BoxesRepo;
  volumes: VolumesService;
  policies: Pick<PoliciesService, 'get'>;
  apps: Pick<AppsService, 'exists'>;
}

/**
 * Box lifecycle: turns each operation into runtime calls and status changes. Operations on
 * one box are serialised (a per-box lock); the API layer never touches the runtime itself.
 * The repository and the runtime are private: other areas get narrow ports (boxes/ports.ts),
 * and checkpoints and forks (checkpoint-service.ts) get the lifecycle's core from here, the
 * owner of the box lock.
 */
export class BoxService {
  private readonly repo: BoxesRepo;
  /** Environment and files other areas put into every box (egress CA, inference variables). */
  readonly guestSetup = new GuestSetupRegistry();
  /** Networking and lifecycle hooks of areas built after boxes (network, cron). */
  readonly hooks = new BoxHooks();
  /** Checkpoints, boxes made from them and forks: part of the lifecycle, under its lock. */
  readonly checkpoints: CheckpointService;
  /** Serves the files of a failed box from its stopped disk (maintenance.ts). */
  readonly maintenance: MaintenanceVms;
  /** Published ports of a running VM (the network area's listeners). */
  readonly forwards: BoxForwards;
  /** A VM's CPU, memory and disk figures (the usage area's sampler). */
  readonly meters: BoxMeters;
  private lock = new KeyedLock();

  constructor(
    private app: AppBase,
    private readonly runtime: BoxRuntime,
    private deps: BoxServiceDeps,
  ) {
    this.repo = deps.repo;
    this.forwards = runtime;
    this.meters = runtime;
    const [withLock, fresh, boot, vmConfig] = [this.withLock.bind(this), this.fresh.bind(this), this.boot.bind(this), this.vmConfig.bind(this)];
    this.checkpoints = new CheckpointService({ repo: this.repo, runtime, withLock, fresh, boot, vmConfig });
    this.maintenance = new MaintenanceVms({ runtime, withLock, fresh, vmConfig, get: async (id) => await this.repo.get(id) }, app.log);
    this.repo.onStatus = (b, from, r) => app.log.info(`box ${b.box_id} (${b.name}): ${from} -> ${b.status}${r ? `: ${r}` : ''}`, { box_id: b.box_id });
    runtime.onUnexpectedExit(async (boxId, reason) => await this.onVmLost(boxId, reason));
  }

  /** A box as the API shows it: the record and the URL of each published port. */
  view(b: BoxRecord): Promise<Box> {
    return toBox(b, this.hooks.ingressUrls);
  }

  /** A box by id, any organization, terminated ones included (callers check the organization). */
  async get(boxId: string): Promise<BoxRecord | undefined> {
    return await this.repo.get(boxId);
  }

  /** Every box that is not terminated, all organizations. */
  async live(): Promise<BoxRecord[]> {
    return await this.repo.live();
  }

  /** The guest agent of a running box (exec, files, code). */
  agent(boxId: string): Promise<GuestAgent> {
    return this.runtime.agent(boxId);
  }

  /** Work every new template does before its warm snapshot (the code area's daemon). */
  addTemplateWarmup(w: TemplateWarmup): void {
    this.runtime.addTemplateWarmup?.(w);
  }

  /** Where the runtime finds the root file system of an image of the images area. */
  setImageResolver(resolve: ImageResolver): void {
    this.runtime.setImageResolver?.(resolve);
  }

  /** One page of the organization's boxes, as the API shows them. */
  async list(orgId: string, q: Parameters<BoxesRepo['list']>[1]): Promise<{ rows: Box[]; total: number }> {
    const { rows, total } = await this.repo.list(orgId, q);
    return { rows: await Promise.all(rows.map((r) => this.view(r))), total };
  }

  /** Runs fn with the box's lock held; operations on different boxes run concurrently. */
  withLock<T>(boxId: string, fn: () => Promise<T>): Promise<T> {
    return this.lock.run(boxId, fn);
  }

  private vmConfig(box: BoxRecord): Promise<VmConfig> {
    return boxVmConfig(box, this.deps.volumes, this.hooks.network, this.guestSetup);
  }

  /** A new box: running, or failed to start (`NewBox`); an unknown image throws `UnknownImage`. */
  async create(auth: Principal, body: CreateBoxBody): Promise<NewBox> {
    await checkCreate({ ...this.deps, images: () => this.hooks.images.names() }, auth, body);
    const rec = newBoxRecord(auth, body);
    const config = this.vmConfig(rec); // its lookups (ports, volumes) need no row: beside the insert
    await insertBeside(this.repo, rec, config, (id) => this.hooks.boxGone(id));
    this.stamps.written(rec.box_id);
    return newBox(await this.withLock(rec.box_id, async () => await this.boot(rec, async () => this.runtime.create(await config), undefined, 'create')));
  }

  /** Starts a VM for the box and records the outcome: running, or failed with the reason. */
  private async boot(box: BoxRecord, start: () => Promise<void | StartResult>, failure = 'The VM did not start', operation = 'start'): Promise<Box> {
    try {
      const t0 = performance.now();
      const started = await start();
      await this.applyGuestFiles(box, !!started?.filesWritten);
      await this.hooks.boxStarted(box);
      const last_start = { operation, ms: Math.round(performance.now() - t0), from: started?.from ?? null };
      return await this.view(await this.repo.setStatus(box.box_id, 'running', { started_at: new Date().toISOString(), last_start }, box.status));
    } catch (e) {
      this.app.log.error(`box ${box.box_id} failed to start`, e, { box_id: box.box_id, phase: operation });
      await this.runtime.stop(box.box_id).catch(() => {});
      return await this.view(await this.repo.setStatus(box.box_id, 'failed', { error_message: `${failure}: ${(e as Error).message}` }, box.status));
    }
  }

  /** Writes the files of guestSetup into a freshly started VM (idempotent: same content each time). */
  private async applyGuestFiles(box: BoxRecord, filesWritten = false) {
    const files = filesWritten ? [] : this.guestSetup.files(box);
    if (!files.length && !this.guestSetup.startHooks.length) return;
    const agent = await this.runtime.agent(box.box_id);
    await writeGuestFiles(agent, files);
    for (const hook of this.guestSetup.startHooks) await hook(box, agent);
  }

  pause(box: BoxRecord): Promise<Box> {
    return this.withLock(box.box_id, async () => {
      const cur = await this.fresh(box, 'pause');
      await this.saveOrFail(cur);
      return await this.view(await this.repo.setStatus(cur.box_id, 'paused'));
    });
  }

  sleep(box: BoxRecord, wakeAt: string | null | undefined): Promise<Box> {
    return this.withLock(box.box_id, async () => {
      const cur = await this.fresh(box, 'sleep');
      if (cur.status === 'running') {
        await this.saveOrFail(cur);
        await this.repo.setStatus(cur.box_id, 'sleeping');
      }
      if (wakeAt !== undefined) await this.repo.update(cur.box_id, { wake_at: wakeAt && new Date(wakeAt).toISOString() });
      return await this.view((await this.repo.get(cur.box_id))!);
    });
  }

  async setWakeAt(box: BoxRecord, wakeAt: string | null): Promise<Box> {
    const cur = await this.fresh(box, 'wake_at');
    await this.repo.update(cur.box_id, { wake_at: wakeAt && new Date(wakeAt).toISOString() });
    return await this.view((await this.repo.get(cur.box_id))!);
  }

  /** Attaches (or with null detaches) an HTTP policy; the caller has checked access and the policy. */
  async setHttpPolicy(boxId: string, policyId: string | null): Promise<void> {
    await this.repo.update(boxId, { http_policy_id: policyId });
  }

  /** Input + output tokens the box may use through the inference gateway over its life (null: unlimited). */
  async setInferenceBudget(boxId: string, tokens: number | null): Promise<Box> {
    await this.repo.update(boxId, { inference_budget_tokens: tokens });
    return await this.view((await this.repo.get(boxId))!);
  }

  async setAutoSleep(box: BoxRecord, auto: Box['auto_sleep']): Promise<Box> {
    const cur = await this.fresh(box, 'auto_sleep');
    await this.repo.update(cur.box_id, { auto_sleep: auto, last_activity_at: new Date().toISOString() });
    return await this.view((await this.repo.get(cur.box_id))!);
  }

  resume(box: BoxRecord): Promise<{ box: Box; resume_state: 'running' | 'already_running' }> {
    return this.withLock(box.box_id, async () => {
      const cur = await this.fresh(box, 'resume');
      if (cur.status === 'running') return { box: await this.view(cur), resume_state: 'already_running' as const };
      const b = await this.wake(cur);
      return { box: b, resume_state: 'running' as const };
    });
  }

  /** Brings a saved or interrupted box back; the caller holds the lock. */
  private async wake(cur: BoxRecord): Promise<Box> {
    const cfg = await this.vmConfig(cur);
    await this.repo.update(cur.box_id, { wake_at: null, last_activity_at: new Date().toISOString() });
    if (cur.status === 'interrupted_restorable') return await this.boot(cur, () => this.runtime.coldBoot(cfg), undefined, 'recover');
    return await this.boot(cur, () => this.runtime.restore(cfg), undefined, 'resume');
  }

  /** For exec, file calls and due cron jobs: a sleeping or interrupted box wakes; a paused one does not. */
  async ensureRunning(box: BoxRecord, op: 'exec' | 'files'): Promise<BoxRecord> {
    const cur = await this.fresh(box, op);
    if (cur.status !== 'running') {
      await this.withLock(cur.box_id, async () => {
        const again = await this.fresh(cur, op);
        if (again.status !== 'running' && again.status !== 'failed') await this.wake(again);
      });
    }
    const after = (await this.repo.get(box.box_id))!;
    if (after.status !== 'running') throw new Unavailable(`Box ${box.box_id} could not be woken: ${after.error_message ?? after.status}.`);
    await this.touch(after.box_id);
    return after;
  }

  reboot(box: BoxRecord, op: 'reboot' | 'upgrade' = 'reboot'): Promise<Box> {
    return this.withLock(box.box_id, async () => {
      const cur = await this.fresh(box, op);
      if (cur.status === 'running') {
        await this.runtime.stop(cur.box_id);
        await this.repo.setStatus(cur.box_id, 'interrupted_restorable', { error_message: null });
      } else if (cur.status === 'failed') {
        await this.runtime.stop(cur.box_id).catch(() => {}); // whatever is left of its VM
        await this.repo.setStatus(cur.box_id, 'interrupted_restorable', { error_message: null });
      } else if (cur.status === 'paused' || cur.status === 'sleeping') {
        await this.repo.setStatus(cur.box_id, 'interrupted_restorable', { error_message: null }); // saved memory is dropped
      }
      return await this.boot(cur, async () => this.runtime.coldBoot(await this.vmConfig(cur)), undefined, op);
    });
  }

  terminate(box: BoxRecord): Promise<Box> {
    return this.withLock(box.box_id, async () => {
      const cur = await this.fresh(box, 'terminate');
      await this.repo.setStatus(cur.box_id, 'terminating');
      await this.hooks.boxGone(cur.box_id);
      await this.runtime.destroy(cur.box_id);
      this.stamps.forget(cur.box_id);
      return await this.view(await this.repo.setStatus(cur.box_id, 'terminated'));
    });
  }

  /** Forgets boxes terminated more than TERMINATED_KEPT_MS before `now` (until then GET and lists show them). */
  async purgeTerminated(now = Date.now()): Promise<number> {
    return await this.repo.purgeTerminated(new Date(now - TERMINATED_KEPT_MS).toISOString());
  }

  /** Re-reads the box under the lock and checks the operation is legal in its current state. */
  private async fresh(box: BoxRecord, op: Parameters<typeof assertAccepts>[0]): Promise<BoxRecord> {
    const cur = (await this.repo.get(box.box_id))!;
    assertAccepts(op, cur.status, cur.box_id);
    return cur;
  }

  private async saveOrFail(cur: BoxRecord) {
    try {
      await this.runtime.save(cur.box_id);
    } catch (e) {
      await this.repo.setStatus(cur.box_id, 'failed', { error_message: `Saving the VM state failed: ${(e as Error).message}` });
      throw new Failed(`Saving box ${cur.box_id} failed: ${(e as Error).message}`);
    }
  }

  private stamps = new ActivityStamps();
  /** Records activity for auto-sleep (ActivityStamps); a stamp promises nothing (a lost one only delays an auto-sleep): no flush waited for. */
  async touch(boxId: string) {
    const now = Date.now();
    if (this.stamps.due(boxId, now)) await (this.deps.activity ?? this.repo).update(boxId, { last_activity_at: new Date(now).toISOString() });
  }

  private async onVmLost(boxId: string, reason: { kind: 'killed' | 'panic' | 'agent_lost'; message: string }) {
    if (this.lock.held(boxId)) return; // an operation in progress owns the outcome
    const box = await this.repo.get(boxId);
    if (!box || box.status !== 'running') return;
    const to: BoxStatus = reason.kind === 'killed' ? 'interrupted_restorable' : 'failed';
    this.app.log.warn(`box ${boxId} lost its VM (${reason.kind}): ${reason.message}`, { box_id: boxId, reason: reason.kind });
    await this.repo.setStatus(boxId, to, { error_message: reason.message });
  }

  /** On service start: derive each box's state from what is really running (reconcile.ts); resolves when the background adoptions are done. */
  async reconcile(): Promise<{ adopting: Promise<void> }> {
    const [vmConfig, withLock] = [this.vmConfig.bind(this), this.withLock.bind(this)];
    return await reconcileBoxes(this.app.log, this.repo, this.runtime, vmConfig, withLock);
  }
}
