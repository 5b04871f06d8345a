/**
 * Where a box's machine comes from: the guest image (built once), the accelerator (probed
 * once), the QEMU launch config of a box, and the warm template of its shape.
 */
import type { ImageResolver, Progress, TemplatePort, TemplateShape, VmConfig as BoxVmConfig } from '../../boxes/ports.js';
import { detectAccelerator, type AccelResult } from '../qemu/accel.js';
import { ensureAgentBinary } from '../guest-image/agent-build.js';
import { cachedGuestImage, ensureGuestImage, type GuestImage, type ImageProgress } from '../guest-image/guest-image.js';
import { hostTscKhz } from '../qemu/host.js';
import { TemplateStore } from './templates.js';
import { tcgCacheFor } from './template-warmups.js';
import type { RuntimeLog } from '../../../kernel/logger.js';
import type { VmConfig } from '../qemu/vm-config.js';

/** The code layer's build as it goes: its progress, then `done`, or its failure. */
export type LayerProgress = ImageProgress | { phase: 'failed'; error: Error };

export class MachineSource {
  readonly store: TemplateStore;
  private accelP?: Promise<AccelResult>;
  private imageP?: Promise<GuestImage>;
  private layerP?: Promise<GuestImage>;
  /**
   * The built-in image in layers (issue 35; the service's default): with the full image not
   * in the cache, the base (no code interpreter) is built first and boxes start from it;
   * the code interpreter's layer is built after it in the background (its progress to
   * onLayerProgress), and once it lands image() is the full image and onImageChange runs
   * (the templates on the base are built again on it). Off: image() waits for the full image.
   */
  private layered: boolean;
  private onLayerProgress?: (p: LayerProgress) => void;
  /** Runs when image() turns from the base to the full image (the code layer landed). */
  readonly onImageChange: ((img: GuestImage, was: GuestImage) => void)[] = [];
  /** Root disks of images other than the built-in one (images area); template keys hash the path. */
  resolveImage?: ImageResolver;

  constructor(
    private dataDir: string,
    private onImageProgress?: (p: ImageProgress) => void,
    private log?: RuntimeLog,
    onTemplateBuild?: TemplateStore['onBuild'],
    layers?: { onProgress?: (p: LayerProgress) => void },
  ) {
    this.layered = !!layers;
    this.onLayerProgress = layers?.onProgress;
    this.store = new TemplateStore(dataDir);
    this.store.log = log;
    this.store.onBuild = onTemplateBuild;
  }

  /** The TemplatePort without clones (BOX_TEMPLATES=0): list, remove, build. */
  readonly port: TemplatePort = {
    list: () => this.store.list(),
    remove: (id) => this.store.remove(id),
    prepare: async (shape) => void (await this.template(shape)),
  };

  /** Why the accelerator was chosen, once known (the service log says it). */
  accelReason?: string;

  accelerator() {
    this.accelP ??= this.image().then((img) => detectAccelerator({ dataDir: this.dataDir, kernel: img.kernel }));
    return this.accelP.then((a) => ((this.accelReason = a.reason), a.accel));
  }

  /** The default guest image, built once and cached (progress goes to onImageProgress). */
  image(): Promise<GuestImage> {
    this.imageP ??= ensureAgentBinary().then(() => this.buildImage());
    this.imageP.catch(() => (this.imageP = undefined));
    return this.imageP;
  }

  /** The image boxes start from now; layered, the base while the code layer is built after it. */
  private async buildImage(): Promise<GuestImage> {
    if (!this.layered) return this.ensureImage('full', this.onImageProgress);
    const full = await cachedGuestImage({ dataDir: this.dataDir });
    if (full) return (this.onImageProgress?.({ phase: 'done', percent: 100, message: 'guest image cached' }), full);
    const base = await this.ensureImage('base', this.onImageProgress);
    this.buildLayer(base);
    return base;
  }

  /** The code interpreter's layer over the base, in the background; image() is the full image once it lands. */
  private buildLayer(base: GuestImage) {
    if (this.layerP) return;
    this.onLayerProgress?.({ phase: 'layer', percent: 0, message: 'starting after the base' });
    this.layerP = this.ensureImage('full', (p) => this.onLayerProgress?.(p)).then(
      (full) => {
        this.imageP = Promise.resolve(full);
        for (const f of this.onImageChange) f(full, base);
        return full;
      },
      (e: Error) => {
        this.onLayerProgress?.({ phase: 'failed', error: e });
        throw e; // boxes stay on the base; the next start of the service tries again
      },
    );
    this.layerP.catch(() => {});
  }

  /** ensureGuestImage, told to the service log when it builds (a phase past `check`): start, end, time, or the failure. */
  private async ensureImage(layers: 'base' | 'full', report?: (p: ImageProgress) => void): Promise<GuestImage> {
    const t0 = Date.now();
    let building = false;
    const what = layers === 'base' ? 'guest image (the base)' : 'guest image';
    const onProgress = (p: ImageProgress) => {
      if (!building && p.phase !== 'check' && p.phase !== 'done') {
        building = true;
        this.log?.info(`${what}: build started (${p.phase}: ${p.message}): not in the image cache for this recipe, kernel and agent`, {
          phase: 'image_build',
        });
      }
      report?.(p);
    };
    try {
      const img = await ensureGuestImage({ dataDir: this.dataDir, onProgress, layers });
      if (building || !img.cached)
        this.log?.info(`${what} ${img.recipeHash}: built in ${((Date.now() - t0) / 1000).toFixed(1)} s (${img.dir})`, {
          phase: 'image_build',
          duration_ms: Date.now() - t0,
        });
      return img;
    } catch (e) {
      this.log?.warn(`${what}: build failed after ${((Date.now() - t0) / 1000).toFixed(1)} s: ${(e as Error).message}`, {
        phase: 'image_build',
        duration_ms: Date.now() - t0,
      });
      throw e;
    }
  }

  async vmConfig(cfg: BoxVmConfig): Promise<VmConfig> {
    const [img, accel] = [await this.image(), await this.accelerator()];
    // Every image boots with the built-in kernel and initrd (the initrd carries the agent);
    // the root disk only matters when a disk is created (the runtime's create checks it).
    const own = cfg.image !== 'debian' ? await this.resolveImage?.(cfg.image) : undefined;
    const tcgCache = tcgCacheFor(this.store.warmups, own?.lineage ?? [cfg.image]);
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
      ...(tcgCache ? { tcgTbSizeMib: tcgCache } : {}),
    };
  }

  /**
   * The ready template of this shape, built first when missing. Only the default image
   * exists today: an image other than it gets its own template once the image area
   * hands its files here (the key hashes the kernel, initrd and rootfs paths).
   */
  async template(shape: TemplateShape, onProgress?: (p: Progress) => void) {
    const base = await this.templateBase(shape);
    const img = await this.image();
    return this.store.ensure(shape, base, img.recipeHash, onProgress && ((p) => onProgress({ phase: `template: ${p.phase}`, percent: p.percent })));
  }

  /** The ready template of this shape, or undefined while it is missing or being built (none is started). */
  async readyTemplate(shape: TemplateShape) {
    return this.store.readyFor(shape, await this.templateBase(shape), (await this.image()).recipeHash);
  }

  /** The ready template of this shape on the given image (the base's, after the code layer landed). */
  async readyTemplateOf(shape: TemplateShape, img: GuestImage) {
    const base = await this.templateBase(shape);
    return this.store.readyFor(shape, { ...base, rootfs: img.rootfs }, img.recipeHash);
  }

  private templateBase(shape: TemplateShape) {
    return this.vmConfig({
      boxId: 'template',
      hostname: 'box',
      image: shape.image,
      vcpus: shape.vcpus,
      memoryMib: shape.memoryMib,
      diskGib: shape.diskGib,
      mounts: [],
      forwards: [],
    });
  }
}
