/**
 * The box domain's runtime port implemented with QEMU: one daemonized QEMU per running
 * box, one agent connection each. VMs outlive the service; `adopt` re-attaches to them.
 * Checkpoints live in <dataDir>/checkpoints/<id>/ so they outlive their box.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import type { BoxRuntime, GuestAgent, ImageResolver, VmConfig as BoxVmConfig } from '../boxes/runtime-port.js';
import { RuntimeError } from '../boxes/runtime-port.js';
import type { AgentClient } from '../guest/agent-client.js';
import { detectAccelerator, type AccelResult } from './accel.js';
import { waitForAgent } from './agent-wait.js';
import { boxFolder, isAlive, livePid, readState, writeState, type BoxFolder } from './box-folder.js';
import { ExecFacade, guestAgentAdapter } from './guest-agent-adapter.js';
import { AGENT_BUILD_PATH, ensureGuestImage, RESOURCES_DIR, type GuestImage, type ImageProgress } from './guest-image.js';
import { hostTscKhz } from './host.js';
import { collectLayers, deleteCheckpointDir, dirSizeBytes } from './layers.js';
import type { VmConfig } from './vm-config.js';
import { checkpointFolder, cloneFolder, restoreVm, saveAndStop } from './vm-snapshot.js';
import { addHostForward, attachVm, killVm, launchVm, removeHostForward, type VmHandle } from './vm.js';

type LostCb = Parameters<BoxRuntime['onUnexpectedExit']>[0];
/**
 * What the new agent connection of a box finds (PROTOCOL.md, "Detached execs"):
 * boot — a fresh guest, tracked execs are gone; restore (its own saved memory) and adopt
 * (a VM that outlived the service) — tracked execs are attached again; clone — a copy of
 * another box's memory, whose detached execs belong to that box and are killed.
 */
type ConnectKind = 'boot' | 'restore' | 'adopt' | 'clone';
const execFileP = promisify(execFile);

/** Builds the guest agent from resources/ when no binary is there yet (static, with the host's gcc). */
export async function ensureAgentBinary(): Promise<void> {
  if (process.env.BOX_AGENT_BINARY || existsSync(AGENT_BUILD_PATH)) return;
  await execFileP('make', ['-s', '-C', join(RESOURCES_DIR, 'guest', 'agent')]).catch((e: Error & { stderr?: string }) => {
    throw new RuntimeError(`building the guest agent failed (needs gcc, make and libc6-dev): ${e.stderr || e.message}`);
  });
}

const AGENT_BOOT_TIMEOUT_MS = 180_000;
const HEALTH_EVERY_MS = 15_000;
const HEALTH_FAILURES = 3;

export interface QemuRuntimeOptions {
  onImageProgress?: (p: ImageProgress) => void;
}

export class QemuBoxRuntime implements BoxRuntime {
  readonly name = 'qemu';
  private handles = new Map<string, VmHandle>();
  private agents = new Map<string, AgentClient>();
  private stopping = new Set<string>();
  private health = new Map<string, NodeJS.Timeout>();
  /** execs handed to the box domain that have not ended, per box */
  private execs = new Map<string, Set<ExecFacade>>();
  private lost: LostCb[] = [];
  private accelP?: Promise<AccelResult>;
  private imageP?: Promise<GuestImage>;
  private resolveImage?: ImageResolver;

  constructor(
    private dataDir: string,
    private opts: QemuRuntimeOptions = {},
  ) {}

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

  setImageResolver(resolve: ImageResolver) {
    this.resolveImage = resolve;
  }

  private folder(boxId: string): BoxFolder {
    return boxFolder(this.dataDir, boxId);
  }

  private cpDir(id: string) {
    return join(this.dataDir, 'checkpoints', id);
  }

  private async vmConfig(cfg: BoxVmConfig): Promise<VmConfig> {
    const [img, accel] = [await this.image(), await this.accelerator()];
    // Every image boots with the built-in kernel and initrd (the initrd carries the agent).
    // The root disk only matters when a box's disk is created (create() checks the image
    // exists); clones and cold boots of boxes whose image was deleted since keep working.
    const own = cfg.image !== 'debian' ? await this.resolveImage?.(cfg.image) : undefined;
    return {
      kernel: img.kernel,
      initrd: img.initrd,
      rootfs: own?.rootfs ?? img.rootfs,
      rootfsFormat: own?.format ?? 'raw',
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

  async create(cfg: BoxVmConfig) {
    if (cfg.image !== 'debian' && !(await this.resolveImage?.(cfg.image))) throw new RuntimeError(`unknown image "${cfg.image}"`);
    const folder = this.folder(cfg.boxId);
    this.handles.set(cfg.boxId, await launchVm(folder, await this.vmConfig(cfg)));
    await this.connect(cfg.boxId, folder, 'boot');
  }

  private async connect(boxId: string, folder: BoxFolder, kind: ConnectKind) {
    let client: AgentClient;
    try {
      client = await waitForAgent(folder, { timeoutMs: AGENT_BOOT_TIMEOUT_MS, afterRestore: kind === 'restore' || kind === 'clone' });
    } catch (e) {
      throw new RuntimeError(`the guest agent did not answer: ${(e as Error).message}${this.panicNote(folder)}`);
    }
    if (kind === 'boot') this.failExecs(boxId, 'the VM started afresh from its disk: the process is gone');
    else if (kind === 'clone') for (const d of client.info!.detached) client.killDetached(d.stream);
    else this.attachExecs(boxId, client);
    // a resynchronising HELLO (framing error) detaches our execs too: take them back
    client.on('hello', () => this.attachExecs(boxId, client));
    this.agents.set(boxId, client);
    void client.closed.then(() => this.onAgentGone(boxId, client));
    this.watchHealth(boxId, client);
  }

  private trackExec(boxId: string, f: ExecFacade) {
    const set = this.execs.get(boxId) ?? new Set<ExecFacade>();
    this.execs.set(boxId, set);
    set.add(f);
    const untrack = () => {
      set.delete(f);
      if (!set.size && this.execs.get(boxId) === set) this.execs.delete(boxId);
    };
    f.exit.then(untrack, untrack);
  }

  /** Binds every open exec of the box to its exec on this connection, or ends it when the agent no longer knows it. */
  private attachExecs(boxId: string, client: AgentClient) {
    const listed = new Set(client.info?.detached.map((d) => d.stream));
    for (const f of this.execs.get(boxId) ?? []) {
      if (f.done || f.bound) continue;
      if (listed.has(f.stream)) f.bind(client.attach(f.stream, { tty: f.tty }));
      else f.fail(new RuntimeError('the process is gone: the guest agent does not know it any more', 'disconnected'));
    }
  }

  private failExecs(boxId: string, why: string) {
    for (const f of this.execs.get(boxId) ?? []) f.fail(new RuntimeError(why, 'disconnected'));
  }

  private watchHealth(boxId: string, client: AgentClient) {
    clearInterval(this.health.get(boxId));
    let failures = 0;
    const t = setInterval(() => {
      client.ping().then(
        () => (failures = 0),
        () => {
          if (++failures < HEALTH_FAILURES || this.stopping.has(boxId)) return;
          clearInterval(t);
          this.emitLost(boxId, 'agent_lost', `The guest agent stopped answering (${HEALTH_FAILURES} health checks failed).`);
          void killVm(this.folder(boxId)).catch(() => {});
        },
      );
    }, HEALTH_EVERY_MS);
    t.unref();
    this.health.set(boxId, t);
  }

  private onAgentGone(boxId: string, client: AgentClient) {
    if (this.agents.get(boxId) !== client) return;
    this.agents.delete(boxId);
    clearInterval(this.health.get(boxId));
    if (this.stopping.has(boxId)) return;
    const folder = this.folder(boxId);
    setTimeout(() => {
      if (this.stopping.has(boxId) || this.agents.has(boxId)) return;
      const panic = this.panicNote(folder);
      if (isAlive(folder)) this.emitLost(boxId, 'agent_lost', 'The connection to the guest agent dropped while the VM kept running.');
      else if (panic) this.emitLost(boxId, 'panic', `The guest kernel panicked${panic}`);
      else this.emitLost(boxId, 'killed', 'The VM process exited unexpectedly (killed?); the box restarts from its disk on the next operation.');
    }, 200).unref();
  }

  private emitLost(boxId: string, kind: 'killed' | 'panic' | 'agent_lost', message: string) {
    this.handles.get(boxId)?.qmp.close();
    this.handles.delete(boxId);
    this.failExecs(boxId, `the VM was lost (${kind})`);
    for (const cb of this.lost) cb(boxId, { kind, message });
  }

  /** The last serial-console lines when the guest kernel panicked, else ''. */
  private panicNote(folder: BoxFolder): string {
    try {
      const log = readFileSync(folder.serialLog, 'utf8').slice(-8192);
      const at = log.lastIndexOf('Kernel panic');
      return at < 0 ? '' : `: ${log.slice(at).split('\n')[0]!.trim()}`;
    } catch {
      return '';
    }
  }

  async agent(boxId: string): Promise<GuestAgent> {
    const client = this.agents.get(boxId);
    if (!client?.connected) throw new RuntimeError(`box ${boxId} has no connected guest agent`, 'disconnected');
    return guestAgentAdapter(client, (f) => this.trackExec(boxId, f));
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
    clearInterval(this.health.get(boxId));
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
    this.failExecs(boxId, 'the VM was stopped');
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
    await this.collectGarbage();
  }

  /** Removes frozen layers of deleted checkpoints once nothing builds on them. */
  private async collectGarbage() {
    const root = join(this.dataDir, 'checkpoints');
    if (!existsSync(root)) return;
    const inUse = await collectLayers(this.dataDir);
    for (const id of readdirSync(root)) {
      if (!existsSync(join(root, id, 'meta.json'))) await deleteCheckpointDir(join(root, id), inUse);
    }
  }

  async checkpoint(boxId: string, checkpointId: string, running: boolean) {
    const dir = this.cpDir(checkpointId);
    const folder = this.folder(boxId);
    if (!running) {
      await checkpointFolder(folder, dir);
      return { sizeBytes: dirSizeBytes(dir) };
    }
    // A running box is saved, checkpointed like a saved one, and restored. (QEMU 7.2 cannot
    // re-take its image locks after a second live blockdev-snapshot; this path also keeps
    // the block graph as the command line made it.)
    await this.save(boxId);
    try {
      await checkpointFolder(folder, dir);
    } finally {
      this.handles.set(boxId, await restoreVm(folder));
      await this.connect(boxId, folder, 'restore');
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
    if (!pid) return undefined;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]);
      return { cpuSeconds: ticks / 100, rssBytes: Number(f[21]) * 4096 };
    } catch {
      return undefined;
    }
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
      clearInterval(this.health.get(id));
      this.agents.get(id)?.close();
    }
    for (const h of this.handles.values()) h.qmp.close();
    this.agents.clear();
    this.handles.clear();
  }
}
