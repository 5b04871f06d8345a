/**
 * runtime/templates/: where a box's VM comes from, so that a create is a copy-on-write clone,
 * not a boot: warm templates, one per image and machine shape (this file); clones of one
 * (template-clone.ts); VMs kept ready per template (template-stock.ts): the warm pool of
 * restored clones (warm-pool.ts) and QEMUs started ahead for restores (restore-spares.ts);
 * which of them a new box gets (clone-source.ts); a box's machine as a whole: guest image,
 * accelerator, launch config, template (machine-source.ts).
 *
 * A warm template: an image and a machine shape booted once until the agent answers, then
 * saved (device state + guest RAM file + the frozen disk) in <dataDir>/templates/<id>/, a
 * BoxFolder plus template.json. The id hashes everything the saved state depends on (image
 * recipe, kernel, initrd, rootfs, agent, shape, accelerator, QEMU version, this recipe): a
 * change makes a new template, the old one turns `stale` and goes when no box or checkpoint
 * builds on it. A ready template's files are never written again (clones map the RAM
 * share=off and put overlays on the disk).
 */
import { createHash } from 'node:crypto';
import type { TemplateInfo, TemplateShape, TemplateWarmup } from '../../boxes/ports.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { rm, writeFile, rename } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { waitForAgent } from '../agent-wait.js';
import { execText } from '../exec-text.js';
import { runWarmups, type TemplateBuildEvent } from './template-warmups.js';
import { BoxFolder } from '../box-folder.js';
import { collectLayers, dirSizeBytes } from '../qemu/layers.js';
import { qemuVersion } from '../qemu/host.js';
import { kernelCmdline, SHARE_SLOTS, type VmConfig } from '../qemu/vm-config.js';
import { saveAndStop } from '../qemu/vm-snapshot.js';
import { killVm, launchVm } from '../qemu/vm.js';

/** Bump when what a template holds changes (prep script, device set). */
const TEMPLATE_RECIPE = 'tpl-v2'; // v2: SHARE_SLOTS spare 9p devices in templates for boxes with volumes
const BUILD_TIMEOUT_MS = 180_000;
const STOPPING = 'the service is stopping';
/** A template VM has no volumes, no network and no RAM file of its own (clones get theirs). */
type TemplateVm = Pick<VmConfig, 'mounts' | 'ports' | 'proxyPort' | 'hostname' | 'ramFile' | 'freePageReporting'>;
const TEMPLATE_VM: TemplateVm = { mounts: [], ports: [], proxyPort: undefined, hostname: 'box', ramFile: undefined, freePageReporting: false };

/**
 * Run in the template guest before it is saved: no identity may be shared by clones. The
 * image ships no SSH host keys (they are made per box); machine-id is emptied here and
 * written per clone; written files are flushed so the frozen disk is consistent.
 */
const PREP_SCRIPT = 'rm -f /etc/ssh/ssh_host_*; : > /etc/machine-id 2>/dev/null; sync';

type TemplateRecord = TemplateInfo;

interface TemplateMeta {
  templateId: string;
  shape: TemplateShape;
  key: Record<string, unknown>;
  builtAt: string;
}

export interface Ready {
  templateId: string;
  folder: BoxFolder;
  /** Launch config of the template VM: the clone restores with the same machine shape. */
  config: VmConfig;
}

type Progress = (p: { phase: string; percent: number }) => void;

export class TemplateStore {
  /** Set at service shutdown: builds still waiting to launch their VM give up. */
  private aborted = false;
  private building = new Map<string, { promise: Promise<Ready>; progress: { phase: string; percent: number }; shape: TemplateShape }>();
  private failed = new Map<string, { shape: TemplateShape; error: string }>();
  /** ids current for the present image/kernel/agent (others on disk are stale). */
  private current = new Set<string>();
  /** Runs before a template's files go (the warm pool ends its clones of it). */
  onRemove?: (id: string) => Promise<void>;
  /** Run in the guest before the save (other areas' warm state, e.g. the code kernel). */
  readonly warmups: TemplateWarmup[] = [];
  /** Every build's progress, end or failure (the service's preparation tracker). */
  onBuild?: (e: TemplateBuildEvent) => void;

  /** Where template builds are told (the service log): start, reason, end and time, or the failure. */
  log?: { info(m: string, fields?: object): void; warn(m: string, fields?: object): void };

  constructor(private dataDir: string) {}

  get root() {
    return join(this.dataDir, 'templates');
  }

  folder(id: string) {
    if (!/^tpl_[0-9a-f]+$/.test(id)) throw new Error(`invalid template id: ${id}`);
    return new BoxFolder(join(this.root, id));
  }

  /** The id of the template for this base config (image files + shape); a current one from now on (others on disk are stale). */
  async idFor(shape: TemplateShape, base: VmConfig, recipeHash: string): Promise<{ id: string; key: Record<string, unknown> }> {
    const key = {
      recipe: TEMPLATE_RECIPE,
      image: shape.image,
      recipeHash,
      kernel: base.kernel,
      initrd: base.initrd,
      rootfs: base.rootfs,
      vcpus: shape.vcpus,
      memoryMib: shape.memoryMib,
      diskGib: shape.diskGib,
      volumeSlots: !!shape.volumeSlots,
      accel: base.accel,
      tscKhz: base.tscKhz,
      // the saved guest booted with this command line (execfast, issue 9: e.g. no ASLR under TCG)
      cmdline: kernelCmdline({ ...base, hostname: 'box', mounts: [] }),
      ...(base.tcgTbSizeMib ? { tcgCacheMib: base.tcgTbSizeMib } : {}), // clones launch with the template's config
      qemu: await qemuVersion(),
      ...(this.warmups.length ? { warmups: this.warmups.map((w) => w.key) } : {}),
    };
    const id = `tpl_${createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16)}`;
    this.current.add(id);
    return { id, key };
  }

  private readMeta(id: string): TemplateMeta | undefined {
    try {
      return JSON.parse(readFileSync(join(this.root, id, 'template.json'), 'utf8')) as TemplateMeta;
    } catch {
      return undefined;
    }
  }

  private readyOf(id: string): Ready | undefined {
    const meta = this.readMeta(id);
    const folder = this.folder(id);
    if (!meta || !existsSync(folder.ram) || !existsSync(folder.devices) || !existsSync(folder.disk)) return undefined;
    const state = JSON.parse(readFileSync(folder.stateFile, 'utf8')) as { config: VmConfig };
    return { templateId: id, folder, config: state.config };
  }

  /** The ready template for this shape, or undefined when it is missing or being built (no build started). */
  async readyFor(shape: TemplateShape, base: VmConfig, recipeHash: string): Promise<Ready | undefined> {
    return this.readyOf((await this.idFor(shape, base, recipeHash)).id);
  }

  /**
   * The ready template for this shape, built first when missing (one build per id at a
   * time; concurrent callers share it). `base` is the cold-boot config without identity.
   */
  async ensure(shape: TemplateShape, base: VmConfig, recipeHash: string, onProgress?: Progress): Promise<Ready> {
    const { id, key } = await this.idFor(shape, base, recipeHash);
    const ready = this.readyOf(id);
    if (ready) return ready;
    let b = this.building.get(id);
    if (!b) {
      const progress = { phase: 'boot', percent: 0 };
      const entry = { progress, shape, promise: Promise.resolve(undefined as unknown as Ready) };
      const what = `template ${id} (${shape.image}, ${shape.vcpus} vCPU, ${shape.memoryMib} MiB${shape.volumeSlots ? ', volume slots' : ''})`;
      const before = this.failed.get(id);
      const why = before ? `its last build failed (${before.error})` : 'no ready template of this shape for the present image, kernel and agent';
      const t0 = Date.now();
      const f = () => ({ template_id: id, phase: 'template_build', duration_ms: Date.now() - t0 });
      this.log?.info(`${what}: build started: ${why}`, { template_id: id, phase: 'template_build' });
      const tell = (state: TemplateBuildEvent['state'], error?: string) => this.onBuild?.({ templateId: id, shape, state, ...progress, error });
      tell('running');
      entry.promise = this.build(id, shape, key, base, (p) => (Object.assign(progress, p), tell(p.percent >= 100 ? 'ready' : 'running')))
        .then(
          (r) => (this.log?.info(`${what}: built in ${((Date.now() - t0) / 1000).toFixed(1)} s`, f()), r),
          (e: unknown) => {
            this.log?.[this.aborted ? 'info' : 'warn'](`${what}: build failed after ${((Date.now() - t0) / 1000).toFixed(1)} s: ${(e as Error).message}`, f());
            if (!this.aborted) tell('failed', (e as Error).message);
            throw e;
          },
        )
        .finally(() => this.building.delete(id));
      this.building.set(id, entry);
      b = entry;
    }
    if (onProgress) {
      const t = setInterval(() => onProgress({ ...b.progress }), 250);
      return b.promise.finally(() => clearInterval(t));
    }
    return b.promise;
  }

  private async build(id: string, shape: TemplateShape, key: Record<string, unknown>, base: VmConfig, progress: Progress): Promise<Ready> {
    const folder = this.folder(id);
    this.failed.delete(id);
    await killVm(folder).catch(() => {}); // a build an earlier service process left behind
    await rm(folder.dir, { recursive: true, force: true });
    const config: VmConfig = { ...base, ...TEMPLATE_VM, shareSlots: shape.volumeSlots ? SHARE_SLOTS : 0 };
    try {
      progress({ phase: 'boot', percent: 10 });
      if (this.aborted) throw new Error(STOPPING);
      const handle = await launchVm(folder, config);
      // abortBuilds may have run while QEMU started: no template VM outlives the service
      if (this.aborted) {
        await killVm(handle).catch(() => {});
        throw new Error(STOPPING);
      }
      const agent = await waitForAgent(folder, { timeoutMs: BUILD_TIMEOUT_MS, pid: handle.pid }).catch(async (e) => {
        await killVm(handle).catch(() => {});
        throw e;
      });
      try {
        await runWarmups(this.warmups, agent, progress, (w, why) => this.log?.warn(`template ${id}: warm-up ${w.key} left out: ${why}`));
        const r = await execText(agent, ['/bin/sh', '-c', PREP_SCRIPT]);
        if (r.exitCode !== 0) throw new Error(`template preparation failed: ${r.stderr.trim()}`);
        progress({ phase: 'save', percent: 90 });
        await saveAndStop(handle, { agent });
      } finally {
        agent.close();
        await killVm(folder).catch(() => {});
      }
      const meta: TemplateMeta = { templateId: id, shape, key, builtAt: new Date().toISOString() };
      await writeFile(join(folder.dir, 'template.json.tmp'), JSON.stringify(meta, null, 2));
      await rename(join(folder.dir, 'template.json.tmp'), join(folder.dir, 'template.json'));
      progress({ phase: 'ready', percent: 100 });
      return this.readyOf(id)!;
    } catch (e) {
      const error = this.aborted ? STOPPING : (e as Error).message;
      this.failed.set(id, { shape, error });
      await rm(folder.dir, { recursive: true, force: true }).catch(() => {});
      throw new Error(`building template ${id} failed: ${error}`, { cause: e });
    }
  }

  /** Box folders whose disk chain includes the template's disk, by template id. */
  private async users(): Promise<{ boxes: Map<string, number>; any: Set<string> }> {
    const layers = await collectLayers(this.dataDir);
    const boxes = new Map<string, number>();
    const any = new Set<string>();
    const boxRoot = join(this.dataDir, 'boxes');
    for (const id of existsSync(this.root) ? readdirSync(this.root) : []) {
      const disk = resolve(this.root, id, 'disk.qcow2');
      if (layers.has(disk)) any.add(id);
    }
    // Boxes per template, from their state.json: `template` (set at clone, kept across cold
    // boots) or the template RAM a fork of a clone maps.
    for (const b of existsSync(boxRoot) ? readdirSync(boxRoot) : []) {
      try {
        const st = JSON.parse(readFileSync(join(boxRoot, b, 'state.json'), 'utf8')) as { template?: string; config?: VmConfig };
        const ram = st.config?.ramFile;
        const tpl = st.template ?? (ram && resolve(ram).startsWith(resolve(this.root)) ? basename(dirname(ram)) : undefined);
        if (tpl) boxes.set(tpl, (boxes.get(tpl) ?? 0) + 1);
      } catch {
        /* a folder without state: not a clone */
      }
    }
    return { boxes, any };
  }

  async list(): Promise<TemplateRecord[]> {
    const out: TemplateRecord[] = [];
    const { boxes } = await this.users();
    const seen = new Set<string>();
    for (const [id, b] of this.building) {
      seen.add(id);
      out.push({ templateId: id, shape: b.shape, state: 'building', progress: { ...b.progress }, builtAt: null, bytes: 0, boxes: 0 });
    }
    for (const id of existsSync(this.root) ? readdirSync(this.root) : []) {
      if (seen.has(id) || !/^tpl_/.test(id)) continue;
      const meta = this.readMeta(id);
      if (!meta) continue;
      seen.add(id);
      const state: TemplateInfo['state'] = this.readyOf(id) ? (this.current.has(id) || !this.current.size ? 'ready' : 'stale') : 'failed';
      out.push({ templateId: id, shape: meta.shape, state, builtAt: meta.builtAt, bytes: dirSizeBytes(join(this.root, id)), boxes: boxes.get(id) ?? 0 });
    }
    for (const [id, f] of this.failed) {
      if (!seen.has(id)) out.push({ templateId: id, shape: f.shape, state: 'failed', error: f.error, builtAt: null, bytes: 0, boxes: 0 });
    }
    return out;
  }

  /** Removes a template; 'in_use' while a box or checkpoint builds on it, 'not_found' when absent. */
  async remove(id: string): Promise<'removed' | 'in_use' | 'not_found' | 'building'> {
    this.folder(id);
    if (this.building.has(id)) return 'building';
    if (this.failed.delete(id) && !existsSync(join(this.root, id))) return 'removed';
    if (!existsSync(join(this.root, id))) return 'not_found';
    const { any } = await this.users();
    if (any.has(id)) return 'in_use';
    await this.onRemove?.(id);
    await rm(join(this.root, id), { recursive: true, force: true });
    this.current.delete(id);
    return 'removed';
  }

  /** Ends the VMs of builds in flight (service shutdown): a template VM must not outlive the service. */
  async abortBuilds(): Promise<void> {
    this.aborted = true;
    await Promise.all([...this.building.keys()].map((id) => killVm(this.folder(id)).catch(() => {})));
  }

  /** Deletes stale templates nothing builds on any more (after a box or checkpoint goes). */
  async collectGarbage(): Promise<void> {
    if (!this.current.size || !existsSync(this.root)) return;
    const { any } = await this.users();
    for (const id of readdirSync(this.root)) {
      if (!this.current.has(id) && !this.building.has(id) && !any.has(id)) {
        await this.onRemove?.(id);
        await rm(join(this.root, id), { recursive: true, force: true });
      }
    }
  }
}
