/**
 * The box domain's runtime port implemented with QEMU: one daemonized QEMU per running
 * box, one agent connection each. VMs outlive the service; `adopt` re-attaches to them.
 * A box is created as a clone of the warm template of its image and shape (templates.ts,
 * template-clone.ts); its volume mounts take the template's spare 9p slots and are
 * mounted through the agent. With BOX_TEMPLATES=0, or when the template cannot be built,
 * it cold-boots. A create without mounts takes a warmed clone from the warm pool when one
 * is ready (warm-pool.ts).
 * Checkpoints live in <dataDir>/checkpoints/<id>/ so they outlive their box.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { BoxRuntime, GuestAgent, ImageResolver, Progress, TemplatePort, TemplateWarmup, VmConfig as BoxVmConfig } from '../boxes/ports.js';
import { RuntimeError } from '../boxes/ports.js';
import { AgentConnections } from './agent-connections.js';
import { boxFolder, isAlive, livePid, readState, type BoxFolder } from './box-folder.js';
import type { GuestImage, ImageProgress } from './guest-image/guest-image.js';
import { MachineSource, type LayerProgress } from './templates/machine-source.js';
import type { RuntimeLog } from '../../kernel/logger.js';
import { diskUsageBytes, sampleVm } from './metrics.js';
import { collectCheckpointGarbage, collectLayers, deleteCheckpointDir, dirSizeBytes } from './qemu/layers.js';
import { applyIdentity } from './templates/template-clone.js';
import { canCheckpointInPlace, checkpointFolder, checkpointInPlace, checkpointVm, cloneFolder } from './qemu/checkpoints.js';
import { restoreRanBefore, restoreVm, saveAndStop } from './qemu/vm-snapshot.js';
import { addHostForward, attachVm, killVm, launchVm, removeHostForward, type VmHandle } from './qemu/vm.js';
import { ADOPT_AGENT_TIMEOUT_MS, adoptVm, endVm } from './qemu/vm-adopt.js';
import { restoreSpareCount } from './templates/restore-spares.js';
import { warmPoolSize } from './templates/warm-pool.js';
import { CloneSource } from './templates/clone-source.js';
import { writeGuestFiles } from './guest-files.js';
import { boxEnv } from '../../platform/settings.js';
interface QemuRuntimeOptions {
  onImageProgress?: (p: ImageProgress) => void;
  log?: RuntimeLog; // the service log: image and template builds
  templates?: boolean; // clone boxes from warm templates (default: unless BOX_TEMPLATES=0)
  /** Warmed clones kept ready per template in use (default: BOX_WARM_POOL, else 1). */
  warmPool?: number;
  /** QEMUs started ahead per template in use for restores (default: BOX_RESTORE_SPARES, else 1). */
  restoreSpares?: number;
  /** A create whose template is not ready cold-boots while it builds (default false; the service turns it on). */
  coldWhileTemplateBuilds?: boolean;
  onTemplateBuild?: MachineSource['store']['onBuild']; // template builds as they go (the service's preparation stages)
  /** The built-in image in layers (the service's choice): the base first, the code interpreter's layer built after it (its progress to onProgress). */
  layeredImage?: { onProgress?: (p: LayerProgress) => void };
}

/** Published ports and the proxy may have changed since a save: user-net options, not guest devices. */
const networkOf = (cfg: BoxVmConfig) => ({ ports: cfg.forwards.map((f) => ({ hostPort: f.hostPort, guestPort: f.guestPort })), proxyPort: cfg.proxyPort });

export class QemuBoxRuntime implements BoxRuntime {
  readonly name = 'qemu';
  private handles = new Map<string, VmHandle>();
  private conns = new AgentConnections({
    onLost: (boxId) => {
      this.handles.get(boxId)?.qmp.close();
      this.handles.delete(boxId);
    },
    kill: (boxId) => void killVm(this.folder(boxId)).catch(() => {}),
  });
  private machines: MachineSource;
  /** Undefined with templates off (BOX_TEMPLATES=0): every box cold-boots. */
  private clones?: CloneSource;
  readonly templates: TemplatePort;

  constructor(
    private dataDir: string,
    opts: QemuRuntimeOptions = {},
  ) {
    this.machines = new MachineSource(dataDir, opts.onImageProgress, opts.log, opts.onTemplateBuild, opts.layeredImage);
    const useTemplates = opts.templates ?? boxEnv().templates !== false;
    if (useTemplates) this.clones = new CloneSource(dataDir, this.machines, opts.warmPool ?? warmPoolSize(), opts.restoreSpares ?? restoreSpareCount());
    if (this.clones) this.clones.coldWhileBuilding = !!opts.coldWhileTemplateBuilds;
    this.templates = this.clones?.port ?? this.machines.port;
  }

  accelerator = () => this.machines.accelerator();
  acceleratorReason = () => this.machines.accelReason;

  addTemplateWarmup(w: TemplateWarmup) {
    this.machines.store.warmups.push(w);
  }

  /** The default guest image, built once and cached (progress goes to onImageProgress). */
  image(): Promise<GuestImage> {
    return this.machines.image();
  }

  setImageResolver(resolve: ImageResolver) {
    this.machines.resolveImage = resolve;
  }

  private folder(boxId: string): BoxFolder {
    return boxFolder(this.dataDir, boxId);
  }

  private cpDir(id: string) {
    return join(this.dataDir, 'checkpoints', id);
  }

  async create(cfg: BoxVmConfig, onProgress?: (p: Progress) => void) {
    if (cfg.image !== 'debian' && !(await this.machines.resolveImage?.(cfg.image))) throw new RuntimeError(`unknown image "${cfg.image}"`);
    const folder = this.folder(cfg.boxId);
    const config = await this.machines.vmConfig(cfg);
    const clone = await this.clones?.start(cfg, config, folder, onProgress);
    if (clone) {
      this.handles.set(cfg.boxId, clone.handle);
      await this.conns.connect(cfg.boxId, folder, 'clone', (c) => applyIdentity(c, cfg.hostname));
      const agent = this.conns.client(cfg.boxId)!;
      // the guest-setup files (a warmed clone holds the install-wide ones already)
      await writeGuestFiles(agent, folder, cfg.files ?? []);
      return { filesWritten: true as const, from: clone.from };
    }
    return this.boot(cfg.boxId, folder, config);
  }

  /** A fresh QEMU from the disk; a boot that crashes fails at once (connect watches its pid). */
  private async boot(boxId: string, folder: BoxFolder, config: Parameters<typeof launchVm>[1]) {
    const handle = await launchVm(folder, config);
    this.handles.set(boxId, handle);
    await this.conns.connect(boxId, folder, 'boot', undefined, undefined, handle.pid);
    return { from: 'boot' };
  }

  /** cfg.files, those changed since the saved state's (guest-files.ts); a caller that passed none writes its own. */
  private async syncFiles(cfg: BoxVmConfig, folder: BoxFolder): Promise<{ filesWritten?: true }> {
    if (!cfg.files) return {};
    await writeGuestFiles(this.conns.client(cfg.boxId)!, folder, cfg.files);
    return { filesWritten: true };
  }

  async agent(boxId: string): Promise<GuestAgent> {
    return this.conns.agent(boxId);
  }

  async isAlive(boxId: string) {
    return isAlive(this.folder(boxId));
  }

  /** Takes over a VM that outlived the service only if it runs and its agent answers (vm-adopt.ts). */
  async adopt(cfg: BoxVmConfig, agentTimeoutMs = ADOPT_AGENT_TIMEOUT_MS) {
    const folder = this.folder(cfg.boxId);
    const r = await adoptVm(folder, (resumed, ms) => this.conns.connect(cfg.boxId, folder, resumed ? 'restore' : 'adopt', undefined, ms), agentTimeoutMs);
    if (r.adopted) this.handles.set(cfg.boxId, r.handle);
    else {
      if (this.conns.client(cfg.boxId)) {
        this.conns.quiesce(cfg.boxId); // a connection that then failed: its end is no loss
        this.conns.stopping.delete(cfg.boxId);
      }
      await endVm(folder);
    }
    return { adopted: r.adopted, note: r.note };
  }

  private quiesce = async (boxId: string) => this.conns.quiesce(boxId);

  private async handle(boxId: string): Promise<VmHandle> {
    const h = this.handles.get(boxId) ?? (livePid(this.folder(boxId)) ? await attachVm(this.folder(boxId)) : undefined);
    if (!h) throw new RuntimeError(`box ${boxId} has no running VM`);
    this.handles.set(boxId, h);
    return h;
  }

  async save(boxId: string) {
    const h = await this.handle(boxId);
    const agent = this.conns.client(boxId);
    this.conns.stopping.add(boxId);
    try {
      // The agent unmounts shared folders first: QEMU cannot migrate a VM with 9p mounted.
      await saveAndStop(h, { agent });
      await this.quiesce(boxId);
    } catch (e) {
      await this.quiesce(boxId);
      throw e;
    } finally {
      this.handles.delete(boxId);
      this.conns.stopping.delete(boxId);
    }
  }

  /** Restores with the saved machine shape; published ports and proxy may have changed. */
  async restore(cfg: BoxVmConfig) {
    const folder = this.folder(cfg.boxId);
    const kind = (await restoreRanBefore(folder)) ? 'restore' : 'resume';
    this.handles.set(cfg.boxId, await restoreVm(folder, networkOf(cfg), this.clones?.spares));
    await this.conns.connect(cfg.boxId, folder, kind);
    return { from: 'saved_state', ...(await this.syncFiles(cfg, folder)) };
  }

  async coldBoot(cfg: BoxVmConfig) {
    await this.stop(cfg.boxId);
    const folder = this.folder(cfg.boxId);
    return this.boot(cfg.boxId, folder, await this.machines.vmConfig(cfg));
  }

  /** Processes end with the VM: the execs of the box end with an error. */
  async stop(boxId: string) {
    this.conns.execs.fail(boxId, 'the VM was stopped');
    await this.quiesce(boxId);
    try {
      this.handles.get(boxId)?.qmp.close();
      await killVm(this.folder(boxId));
    } finally {
      this.handles.delete(boxId);
      this.conns.stopping.delete(boxId);
    }
  }

  async destroy(boxId: string) {
    await this.stop(boxId);
    const portFile = (await readState(this.folder(boxId)).catch(() => undefined))?.portFile;
    if (portFile) await rm(portFile, { force: true });
    await rm(this.folder(boxId).dir, { recursive: true, force: true });
    await collectCheckpointGarbage(this.dataDir);
    await this.machines.store.collectGarbage();
  }

  async checkpoint(boxId: string, checkpointId: string, running: boolean, onSaved?: () => void) {
    const dir = this.cpDir(checkpointId);
    const folder = this.folder(boxId);
    if (!running) {
      await checkpointFolder(folder, dir);
      onSaved?.();
      return { sizeBytes: dirSizeBytes(dir) };
    }
    const h = await this.handle(boxId);
    const agent = this.conns.client(boxId);
    // A template clone keeps running in its QEMU (vm-snapshot.ts checkpointInPlace).
    if (canCheckpointInPlace(h)) {
      await checkpointInPlace(h, dir, { agent, onSaved });
      return { sizeBytes: dirSizeBytes(dir) };
    }
    // Otherwise: save, checkpoint the saved folder, restore (checkpointVm); the agent
    // connection drops with the old QEMU.
    this.conns.stopping.add(boxId);
    try {
      await checkpointVm(h, dir, { agent, onSaved });
    } finally {
      await this.quiesce(boxId);
      this.conns.stopping.delete(boxId);
      if (livePid(folder)) {
        this.handles.set(boxId, h);
        await this.conns.connect(boxId, folder, 'resume'); // its own state, just saved: clones of the checkpoint reseed
      } else this.handles.delete(boxId);
    }
    return { sizeBytes: dirSizeBytes(dir) };
  }

  async cloneFromCheckpoint(checkpointId: string, cfg: BoxVmConfig, opts: { sameBox?: boolean } = {}) {
    const dir = this.cpDir(checkpointId);
    if (!existsSync(join(dir, 'meta.json'))) throw new RuntimeError(`checkpoint ${checkpointId} has no files`);
    const folder = this.folder(cfg.boxId);
    await cloneFolder(dir, folder);
    this.handles.set(cfg.boxId, await restoreVm(folder, { ...networkOf(cfg), hostname: cfg.hostname }, this.clones?.spares));
    // a fork is a new box: its own hostname, machine-id and RNG state (with the clock: waitForAgent);
    // a box restored in place stays itself: its machine-id is the checkpoint's, its RNG reseeded all the same
    await this.conns.connect(cfg.boxId, folder, 'clone', (c) => applyIdentity(c, cfg.hostname, { newMachineId: !opts.sameBox }));
    return { from: 'checkpoint', ...(await this.syncFiles(cfg, folder)) };
  }

  /** Memory and device state go; the frozen disk layer stays while a box or checkpoint builds on it. */
  async deleteCheckpoint(checkpointId: string) {
    const inUse = await collectLayers(this.dataDir);
    await deleteCheckpointDir(this.cpDir(checkpointId), inUse);
    await this.machines.store.collectGarbage();
  }

  onUnexpectedExit(cb: Parameters<BoxRuntime['onUnexpectedExit']>[0]) {
    this.conns.onUnexpectedExit(cb);
  }

  diskUsageBytes(boxId: string) {
    return diskUsageBytes(this.folder(boxId));
  }

  consoleLog(boxId: string) {
    return this.folder(boxId).serialLog;
  }

  async sample(boxId: string) {
    return sampleVm(this.folder(boxId));
  }

  async addForward(boxId: string, hostPort: number, guestPort: number) {
    await addHostForward(await this.handle(boxId), hostPort, guestPort);
  }

  async removeForward(boxId: string, hostPort: number) {
    await removeHostForward(await this.handle(boxId), hostPort);
  }

  /** Disconnects from every VM; the VMs keep running for the next service start to adopt. */
  async close() {
    await this.machines.store.abortBuilds();
    await this.clones?.close();
    this.conns.closeAll();
    for (const h of this.handles.values()) h.qmp.close();
    this.handles.clear();
  }
}
