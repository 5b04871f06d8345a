/**
 * Where a box's machine comes from: the guest image (built once), the accelerator (probed
 * once), the QEMU launch config of a box, and the warm template of its shape.
 */
import type { ImageResolver, Progress, TemplatePort, TemplateShape, VmConfig as BoxVmConfig } from '../../boxes/ports.js';
import { detectAccelerator, type AccelResult } from '../qemu/accel.js';
import { ensureAgentBinary } from '../guest-image/agent-build.js';
import { ensureGuestImage, type GuestImage, type ImageProgress } from '../guest-image/guest-image.js';
import { hostTscKhz } from '../qemu/host.js';
import { TemplateStore } from './templates.js';
import type { RuntimeLog } from '../../../kernel/logger.js';
import type { VmConfig } from '../qemu/vm-config.js';

export class MachineSource {
  readonly store: TemplateStore;
  private accelP?: Promise<AccelResult>;
  private imageP?: Promise<GuestImage>;
  /** Root disks of images other than the built-in one (images area); template keys hash the path. */
  resolveImage?: ImageResolver;

  constructor(
    private dataDir: string,
    private onImageProgress?: (p: ImageProgress) => void,
    private log?: RuntimeLog,
    onTemplateBuild?: TemplateStore['onBuild'],
  ) {
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

  /** ensureGuestImage, told to the service log when it builds (a phase past `check`): start, end, time, or the failure. */
  private async buildImage(): Promise<GuestImage> {
    const t0 = Date.now();
    let building = false;
    const onProgress = (p: ImageProgress) => {
      if (!building && p.phase !== 'check' && p.phase !== 'done') {
        building = true;
        this.log?.info(`guest image: build started (${p.phase}: ${p.message}): not in the image cache for this recipe, kernel and agent`, {
          phase: 'image_build',
        });
      }
      this.onImageProgress?.(p);
    };
    try {
      const img = await ensureGuestImage({ dataDir: this.dataDir, onProgress });
      if (building || !img.cached)
        this.log?.info(`guest image ${img.recipeHash}: built in ${((Date.now() - t0) / 1000).toFixed(1)} s (${img.dir})`, {
          phase: 'image_build',
          duration_ms: Date.now() - t0,
        });
      return img;
    } catch (e) {
      this.log?.warn(`guest image: build failed after ${((Date.now() - t0) / 1000).toFixed(1)} s: ${(e as Error).message}`, {
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
