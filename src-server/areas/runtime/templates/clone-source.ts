/**
 * Where a new box's VM comes from while templates are on: a warmed clone from the warm
 * pool (warm-pool.ts) or a fresh restore of the template (template-clone.ts), and the
 * TemplatePort (list, remove, prepare) the box domain sees. A template that cannot be
 * built answers undefined: the box cold-boots (the failure is listed in GET /v1/templates).
 * With `coldWhileBuilding` (the service's default), a template not ready yet answers
 * undefined at once and is built in the background.
 */
import type { Progress, TemplatePort, TemplateShape, VmConfig as BoxVmConfig } from '../../boxes/ports.js';
import type { BoxFolder } from '../box-folder.js';
import type { MachineSource } from './machine-source.js';
import { cloneTemplateFolder } from './template-clone.js';
import type { VmConfig } from '../qemu/vm-config.js';
import { restoreVm } from '../qemu/vm-snapshot.js';
import type { VmHandle } from '../qemu/vm.js';
import { RestoreSpares } from './restore-spares.js';
import { WarmPool } from './warm-pool.js';

export class CloneSource {
  readonly pool: WarmPool;
  /** QEMUs started ahead for restores of boxes built on a template (restore-spares.ts). */
  readonly spares: RestoreSpares;
  readonly port: TemplatePort;
  /** Pool VMs a killed service left behind are gone (no take or fill before). */
  readonly cleared: Promise<void>;
  /** A create whose template is not ready cold-boots while the template builds (the first box waits for no template). */
  coldWhileBuilding = false;
  /** The shapes prepared or started from: built again when the image changes (the code layer landed). */
  private shapes = new Map<string, TemplateShape>();

  constructor(
    dataDir: string,
    private machines: MachineSource,
    poolSize: number,
    spareCount: number,
  ) {
    const store = machines.store;
    this.pool = new WarmPool(dataDir, poolSize, store.warmups);
    this.spares = new RestoreSpares(dataDir, spareCount);
    this.cleared = Promise.all([this.pool.clearLeftovers(), this.spares.clearLeftovers()]).then(
      () => {},
      () => {},
    );
    store.onRemove = async (id) => void (await Promise.all([this.pool.drain(id), this.spares.drain(id)]));
    // The code interpreter's layer landed (the image changed from the base to the full one):
    // every shape in use gets its template built again on the full image, and the warm
    // clones and restore spares of the base's templates end once it is ready (boxes already
    // made from those templates keep them: they are removed only when unused).
    machines.onImageChange.push((img, was) => {
      for (const shape of this.shapes.values()) {
        if (shape.image !== 'debian') continue;
        void (async () => {
          const old = await machines.readyTemplateOf(shape, was);
          await this.port.prepare(shape);
          if (old) await Promise.all([this.pool.drain(old.templateId), this.spares.drain(old.templateId)]);
        })().catch(() => {}); // a failed build is listed in GET /v1/templates and logged
      }
    });
    this.port = {
      list: async () => {
        const [warm, spare] = [this.pool.readyCounts(), this.spares.readyCounts()];
        return (await store.list()).map((t) => ({ ...t, warmClones: warm.get(t.templateId) ?? 0, restoreSpares: spare.get(t.templateId) ?? 0 }));
      },
      remove: (id) => store.remove(id),
      prepare: async (shape) => {
        this.shapes.set(JSON.stringify(shape), shape);
        const tpl = await machines.template(shape);
        await this.cleared;
        this.pool.fill(tpl);
        this.spares.fill(tpl);
      },
    };
  }

  /** A running clone in `folder` for the box (identity and files still to apply), or undefined: cold-boot it. */
  async start(
    cfg: BoxVmConfig,
    config: VmConfig,
    folder: BoxFolder,
    onProgress?: (p: Progress) => void,
  ): Promise<{ handle: VmHandle; from: string } | undefined> {
    const shape = { image: cfg.image, vcpus: cfg.vcpus, memoryMib: cfg.memoryMib, diskGib: cfg.diskGib, ...(cfg.mounts.length ? { volumeSlots: true } : {}) };
    this.shapes.set(JSON.stringify(shape), shape);
    // The first box of a shape does not wait for its template (a boot, then the warm-ups:
    // the code interpreter's kernel, a minute or two under TCG): it cold-boots from the
    // image while the template builds in the background, then fills the pool and spares.
    if (this.coldWhileBuilding && !(await this.machines.readyTemplate(shape))) {
      this.port.prepare(shape).catch(() => {}); // a failed build is listed in GET /v1/templates and logged
      return undefined;
    }
    // Progress comes only while the template (or the image under it) is being built: then
    // this start includes that build, and says so (`new_template`, not a warm `template`).
    let built = false;
    const tpl = await this.machines
      .template(shape, (p) => {
        built = true;
        onProgress?.(p);
      })
      .catch(() => undefined);
    if (!tpl) return undefined;
    const own = { hostname: cfg.hostname, ports: config.ports ?? [], proxyPort: config.proxyPort, mounts: config.mounts ?? [] };
    await this.cleared;
    // a pooled clone's 9p slots export nothing: boxes with volumes restore their own
    const pooled = own.mounts.length ? undefined : await this.pool.take(tpl, { folder, ...own });
    let handle = pooled;
    if (!handle) {
      await cloneTemplateFolder(tpl, folder, own);
      handle = await restoreVm(folder, {}, this.spares);
    }
    this.pool.rememberFiles(cfg.files ?? []);
    this.pool.fillSoon(tpl);
    this.spares.fillSoon(tpl);
    return { handle, from: built ? 'new_template' : pooled ? 'warm_pool' : 'template' };
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.close(), this.spares.close()]);
  }
}
