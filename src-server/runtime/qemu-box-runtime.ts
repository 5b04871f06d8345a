/**
 * The box domain's runtime port implemented with QEMU: one daemonized QEMU per running
 * box, one agent connection each. VMs outlive the service; `adopt` re-attaches to them.
 * A box without volume mounts is created as a clone of the warm template of its image
 * and shape (templates.ts, template-clone.ts); with mounts (extra 9p devices the saved
 * device state lacks) or BOX_TEMPLATES=0 it cold-boots.
 * Checkpoints live in <dataDir>/checkpoints/<id>/ so they outlive their box.
 */
import { existsSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { BoxRuntime, GuestAgent, Progress, TemplatePort, TemplateShape, VmConfig as BoxVmConfig } from '../boxes/runtime-port.js';
import { RuntimeError } from '../boxes/runtime-port.js';
import type { AgentClient } from '../guest/agent-client.js';
import { detectAccelerator, type AccelResult } from './accel.js';
import { ensureAgentBinary } from './agent-build.js';
import { waitForAgent } from './agent-wait.js';
import { boxFolder, isAlive, livePid, readState, writeState, type BoxFolder } from './box-folder.js';
import { ExecTracker } from './exec-tracker.js';
import { guestAgentAdapter } from './guest-agent-adapter.js';
import { ensureGuestImage, type GuestImage, type ImageProgress } from './guest-image.js';
import { hostTscKhz } from './host.js';
import { collectCheckpointGarbage, collectLayers, deleteCheckpointDir, dirSizeBytes } from './layers.js';
import { readProcStat } from './proc-stat.js';
import { applyIdentity, cloneTemplateFolder } from './template-clone.js';
import { TemplateStore } from './templates.js';
import type { VmConfig } from './vm-config.js';
import { HEALTH_FAILURES, HealthWatch, panicNote } from './vm-health.js';
import { checkpointFolder, checkpointVm, cloneFolder, restoreVm, saveAndStop } from './vm-snapshot.js';
import { addHostForward, attachVm, killVm, launchVm, removeHostForward, type VmHandle } from './vm.js';

export { ensureAgentBinary } from './agent-build.js';

type LostCb = Parameters<BoxRuntime['onUnexpectedExit']>[0];
/**
 * What the new agent connection of a box finds (PROTOCOL.md, "Detached execs"):
 * boot — a fresh guest, tracked execs are gone; restore (its own saved memory) and adopt
 * (a VM that outlived the service) — tracked execs are attached again; clone — a copy of
 * another box's memory, whose detached execs belong to that box and are killed.
 */
type ConnectKind = 'boot' | 'restore' | 'adopt' | 'clone';
const AGENT_BOOT_TIMEOUT_MS = 180_000;

export interface QemuRuntimeOptions {
  onImageProgress?: (p: ImageProgress) => void;
  /** Clone boxes from warm templates (default: unless BOX_TEMPLATES=0). */
  templates?: boolean;
}

export class QemuBoxRuntime implements BoxRuntime {
  readonly name = 'qemu';
  private handles = new Map<string, VmHandle>();
  private agents = new Map<string, AgentClient>();
  private stopping = new Set<string>();
  private health = new HealthWatch();
  private execs = new ExecTracker();
  private lost: LostCb[] = [];
  private accelP?: Promise<AccelResult>;
  private imageP?: Promise<GuestImage>;
  private store: TemplateStore;
  private useTemplates: boolean;
  readonly templates: TemplatePort;

  constructor(
    private dataDir: string,
    private opts: QemuRuntimeOptions = {},
  ) {
    this.store = new TemplateStore(dataDir);
    this.useTemplates = opts.templates ?? process.env.BOX_TEMPLATES !== '0';
    this.templates = {
      list: () => this.store.list(),
      remove: (id) => this.store.remove(id),
      prepare: async (shape) => void (await this.template(shape)),
    };
  }

  /** The ready template of this shape, built first when missing. */
  private async template(shape: TemplateShape, onProgress?: (p: Progress) => void) {
    const base = await this.vmConfig({ boxId: 'template', hostname: 'box', image: shape.image, vcpus: shape.vcpus, memoryMib: shape.memoryMib, diskGib: shape.diskGib, mounts: [], forwards: [] });
    const img = await this.image();
    return this.store.ensure(shape, base, img.recipeHash, onProgress && ((p) => onProgress({ phase: `template: ${p.phase}`, percent: p.percent })));
  }

  accelerator() {
    this.accelP ??= this.image().then((img) => detectAccelerator({ dataDir: this.dataDir, kernel: img.kernel }));
    return this.accelP.then((a) => a.accel);
  }

  /** The default guest image, built once and cached (progress goes to onImageProgress). */
  image(): Promise<GuestImage> {
    this.imageP ??= ensureAgentBinary().then(() => ensureGuestImage({ dataDir: this.dataDir, onProgress: this.opts.onImageProgress }));
    this.imageP.catch(() => (this.imageP = undefined));
    return this.imageP;
  }

  private folder(boxId: string): BoxFolder {
    return boxFolder(this.dataDir, boxId);
  }

  private cpDir(id: string) {
    return join(this.dataDir, 'checkpoints', id);
  }

  private async vmConfig(cfg: BoxVmConfig): Promise<VmConfig> {
    const [img, accel] = [await this.image(), await this.accelerator()];
    return {
      kernel: img.kernel,
      initrd: img.initrd,
      rootfs: img.rootfs,
      memoryMib: cfg.memoryMib,
      vcpus: cfg.vcpus,
      diskGib: cfg.diskGib,
      accel: accel as VmConfig['accel'],
      tscKhz: hostTscKhz(),
      proxyPort: cfg.proxyPort,
      ports: cfg.forwards.map((f) => ({ hostPort: f.hostPort, guestPort: f.guestPort })),
      mounts: cfg.mounts.map((m) => ({ hostPath: m.hostPath, guestPath: m.guestPath })),
      hostname: cfg.hostname,
    };
  }

  async create(cfg: BoxVmConfig, onProgress?: (p: Progress) => void) {
    const folder = this.folder(cfg.boxId);
    const config = await this.vmConfig(cfg);
    if (this.useTemplates && !cfg.mounts.length) {
      // A template that cannot be built leaves the box to a cold boot (the failure is listed in GET /v1/templates).
      const tpl = await this.template({ image: cfg.image, vcpus: cfg.vcpus, memoryMib: cfg.memoryMib, diskGib: cfg.diskGib }, onProgress).catch(() => undefined);
      if (tpl) {
        await cloneTemplateFolder(tpl, folder, { hostname: cfg.hostname, ports: config.ports, proxyPort: config.proxyPort });
        this.handles.set(cfg.boxId, await restoreVm(folder));
        await this.connect(cfg.boxId, folder, 'clone');
        await applyIdentity(this.agents.get(cfg.boxId)!, cfg.hostname);
        return;
      }
    }
    this.handles.set(cfg.boxId, await launchVm(folder, config));
    await this.connect(cfg.boxId, folder, 'boot');
  }

  private async connect(boxId: string, folder: BoxFolder, kind: ConnectKind) {
    let client: AgentClient;
    try {
      client = await waitForAgent(folder, { timeoutMs: AGENT_BOOT_TIMEOUT_MS, afterRestore: kind === 'restore' || kind === 'clone' });
    } catch (e) {
      throw new RuntimeError(`the guest agent did not answer: ${(e as Error).message}${panicNote(folder)}`);
    }
    if (kind === 'boot') this.execs.fail(boxId, 'the VM started afresh from its disk: the process is gone');
    else if (kind === 'clone') for (const d of client.info!.detached) client.killDetached(d.stream);
    else this.execs.attach(boxId, client);
    // a resynchronising HELLO (framing error) detaches our execs too: take them back
    client.on('hello', () => this.execs.attach(boxId, client));
    this.agents.set(boxId, client);
    void client.closed.then(() => this.onAgentGone(boxId, client));
    this.health.watch(boxId, client, () => this.stopping.has(boxId), () => {
      this.emitLost(boxId, 'agent_lost', `The guest agent stopped answering (${HEALTH_FAILURES} health checks failed).`);
      void killVm(this.folder(boxId)).catch(() => {});
    });
  }

  private onAgentGone(boxId: string, client: AgentClient) {
    if (this.agents.get(boxId) !== client) return;
    this.agents.delete(boxId);
    this.health.clear(boxId);
    if (this.stopping.has(boxId)) return;
    const folder = this.folder(boxId);
    setTimeout(() => {
      if (this.stopping.has(boxId) || this.agents.has(boxId)) return;
      const panic = panicNote(folder);
      if (isAlive(folder)) this.emitLost(boxId, 'agent_lost', 'The connection to the guest agent dropped while the VM kept running.');
      else if (panic) this.emitLost(boxId, 'panic', `The guest kernel panicked${panic}`);
      else this.emitLost(boxId, 'killed', 'The VM process exited unexpectedly (killed?); the box restarts from its disk on the next operation.');
    }, 200).unref();
  }

  private emitLost(boxId: string, kind: 'killed' | 'panic' | 'agent_lost', message: string) {
    this.handles.get(boxId)?.qmp.close();
    this.handles.delete(boxId);
    this.execs.fail(boxId, `the VM was lost (${kind})`);
    for (const cb of this.lost) cb(boxId, { kind, message });
  }

  async agent(boxId: string): Promise<GuestAgent> {
    const client = this.agents.get(boxId);
    if (!client?.connected) throw new RuntimeError(`box ${boxId} has no connected guest agent`, 'disconnected');
    return guestAgentAdapter(client, (f) => this.execs.track(boxId, f));
  }

  async isAlive(boxId: string) {
    return isAlive(this.folder(boxId));
  }

  async adopt(cfg: BoxVmConfig) {
    const folder = this.folder(cfg.boxId);
    if (!livePid(folder)) return false;
    try {
      this.handles.set(cfg.boxId, await attachVm(folder));
      await this.connect(cfg.boxId, folder, 'adopt');
      return true;
    } catch {
      await killVm(folder).catch(() => {});
      return false;
    }
  }

  private async quiesce(boxId: string) {
    this.stopping.add(boxId);
    this.health.clear(boxId);
    this.agents.get(boxId)?.close();
    this.agents.delete(boxId);
  }

  private async handle(boxId: string): Promise<VmHandle> {
    const h = this.handles.get(boxId) ?? (livePid(this.folder(boxId)) ? await attachVm(this.folder(boxId)) : undefined);
    if (!h) throw new RuntimeError(`box ${boxId} has no running VM`);
    this.handles.set(boxId, h);
    return h;
  }

  async save(boxId: string) {
    const h = await this.handle(boxId);
    const agent = this.agents.get(boxId);
    this.stopping.add(boxId);
    try {
      // The agent unmounts shared folders first: QEMU cannot migrate a VM with 9p mounted.
      await saveAndStop(h, { agent });
      await this.quiesce(boxId);
    } catch (e) {
      await this.quiesce(boxId);
      throw e;
    } finally {
      this.handles.delete(boxId);
      this.stopping.delete(boxId);
    }
  }

  /** Restores with the saved machine shape; published ports and proxy may have changed. */
  async restore(cfg: BoxVmConfig) {
    const folder = this.folder(cfg.boxId);
    await this.refreshNetwork(folder, cfg);
    this.handles.set(cfg.boxId, await restoreVm(folder));
    await this.connect(cfg.boxId, folder, 'restore');
  }

  private async refreshNetwork(folder: BoxFolder, cfg: BoxVmConfig) {
    const state = await readState(folder);
    if (!state) throw new RuntimeError(`box ${cfg.boxId} has no saved state`);
    const ports = cfg.forwards.map((f) => ({ hostPort: f.hostPort, guestPort: f.guestPort }));
    await writeState(folder, { ...state, config: { ...state.config, ports, proxyPort: cfg.proxyPort } });
  }

  async coldBoot(cfg: BoxVmConfig) {
    await this.stop(cfg.boxId);
    const folder = this.folder(cfg.boxId);
    this.handles.set(cfg.boxId, await launchVm(folder, await this.vmConfig(cfg)));
    await this.connect(cfg.boxId, folder, 'boot');
  }

  /** Processes end with the VM: the execs of the box end with an error. */
  async stop(boxId: string) {
    this.execs.fail(boxId, 'the VM was stopped');
    await this.quiesce(boxId);
    try {
      this.handles.get(boxId)?.qmp.close();
      await killVm(this.folder(boxId));
    } finally {
      this.handles.delete(boxId);
      this.stopping.delete(boxId);
    }
  }

  async destroy(boxId: string) {
    await this.stop(boxId);
    await rm(this.folder(boxId).dir, { recursive: true, force: true });
    await collectCheckpointGarbage(this.dataDir);
    await this.store.collectGarbage();
  }

  async checkpoint(boxId: string, checkpointId: string, running: boolean) {
    const dir = this.cpDir(checkpointId);
    const folder = this.folder(boxId);
    if (!running) {
      await checkpointFolder(folder, dir);
      return { sizeBytes: dirSizeBytes(dir) };
    }
    // The one checkpoint-a-running-VM path (vm-snapshot.ts checkpointVm: save, checkpoint
    // the saved folder, restore); the agent connection drops with the old QEMU.
    const h = await this.handle(boxId);
    const agent = this.agents.get(boxId);
    this.stopping.add(boxId);
    try {
      await checkpointVm(h, dir, { agent });
    } finally {
      await this.quiesce(boxId);
      this.stopping.delete(boxId);
      if (livePid(folder)) {
        this.handles.set(boxId, h);
        await this.connect(boxId, folder, 'restore');
      } else this.handles.delete(boxId);
    }
    return { sizeBytes: dirSizeBytes(dir) };
  }

  async cloneFromCheckpoint(checkpointId: string, cfg: BoxVmConfig) {
    const dir = this.cpDir(checkpointId);
    if (!existsSync(join(dir, 'meta.json'))) throw new RuntimeError(`checkpoint ${checkpointId} has no files`);
    const folder = this.folder(cfg.boxId);
    await cloneFolder(dir, folder);
    await this.refreshNetwork(folder, cfg);
    const state = (await readState(folder))!;
    await writeState(folder, { ...state, config: { ...state.config, hostname: cfg.hostname } });
    this.handles.set(cfg.boxId, await restoreVm(folder));
    await this.connect(cfg.boxId, folder, 'clone');
  }

  /** Memory and device state go; the frozen disk layer stays while a box or checkpoint builds on it. */
  async deleteCheckpoint(checkpointId: string) {
    const inUse = await collectLayers(this.dataDir);
    await deleteCheckpointDir(this.cpDir(checkpointId), inUse);
    await this.store.collectGarbage();
  }

  onUnexpectedExit(cb: LostCb) {
    this.lost.push(cb);
  }

  diskUsageBytes(boxId: string) {
    try {
      return statSync(this.folder(boxId).disk).blocks * 512;
    } catch {
      return 0;
    }
  }

  async sample(boxId: string) {
    const pid = livePid(this.folder(boxId));
    const st = pid ? readProcStat(pid) : undefined;
    return st && { cpuSeconds: st.cpuSeconds, rssBytes: st.rssBytes };
  }

  async addForward(boxId: string, hostPort: number, guestPort: number) {
    await addHostForward(await this.handle(boxId), hostPort, guestPort);
  }

  async removeForward(boxId: string, hostPort: number) {
    await removeHostForward(await this.handle(boxId), hostPort);
  }

  /** Disconnects from every VM; the VMs keep running for the next service start to adopt. */
  async close() {
    for (const id of [...this.agents.keys()]) {
      this.stopping.add(id);
      this.health.clear(id);
      this.agents.get(id)?.close();
    }
    for (const h of this.handles.values()) h.qmp.close();
    this.agents.clear();
    this.handles.clear();
  }
}
