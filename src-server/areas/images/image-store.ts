/**
 * The image store: every image a box can start from, content-addressed on disk under
 * <dataDir>/user-images/:
 *   refs/<name>.json        the name -> manifest (digest, disk, run config); written atomically
 *   layers/<key>.qcow2      Boxfile step layers: qcow2 overlays whose backing chain ends at the
 *                           base image's disk, so images sharing a base share its blocks
 *   blobs/<sha256>.raw      OCI imports: one ext4 image per archive digest
 * The built-in `debian` image lives in the guest image cache (runtime/guest-image/guest-image.ts) and is
 * listed here as source `builtin`. A layer file is deleted only when no image manifest and
 * no box or checkpoint disk has it in its backing chain.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { IMAGE_NAME, type ImageRunConfig } from '@box/contract/images';
import { computeImageKeys, ensureGuestImage, guestAgentBinary, imageCacheRoot } from '../runtime/module.js';
import { collectLayers } from '../runtime/module.js';
import { ensureAgentBinary } from '../runtime/module.js';

const execFileP = promisify(execFile);
export const BUILTIN_IMAGE = 'debian';

export interface ImageManifest {
  name: string;
  digest: string;
  source: 'builtin' | 'boxfile' | 'oci';
  base: string | null;
  created_at: string;
  /** The disk boxes get an overlay on (absolute path). */
  disk: string;
  diskFormat: 'raw' | 'qcow2';
  /** Files this image added to the store (its layers or blob); shared ones stay while used. */
  ownFiles: string[];
  config: ImageRunConfig;
}

/** What the runtime needs to boot a box from an image; kernel and initrd are always the built-in ones. */
interface ResolvedImage {
  rootfs: string;
  format: 'raw' | 'qcow2';
  digest: string;
  /** This image's name, then the images it was built FROM, nearest first. */
  lineage: string[];
}

export const EMPTY_CONFIG: ImageRunConfig = { env: {}, workdir: null, user: null, cmd: null };

const blocksOf = (f: string) => {
  try {
    return statSync(f).blocks * 512;
  } catch {
    return 0;
  }
};

export class ImageStore {
  readonly root: string;
  private builtinDigest?: Promise<string>;

  constructor(readonly dataDir: string) {
    this.root = join(dataDir, 'user-images');
  }

  get layersDir() {
    return join(this.root, 'layers');
  }
  get blobsDir() {
    return join(this.root, 'blobs');
  }
  private refPath(name: string) {
    return join(this.root, 'refs', `${name}.json`);
  }

  /** The built-in image's manifest, from the guest image cache (disk path empty until built). */
  private async builtin(): Promise<ImageManifest> {
    this.builtinDigest ??= computeImageKeys(guestAgentBinary().path).then((k) => k.recipe);
    const recipe = await this.builtinDigest.catch(() => 'unknown');
    const meta = join(imageCacheRoot(this.dataDir), recipe, 'image.json');
    const built = existsSync(meta) ? (JSON.parse(readFileSync(meta, 'utf8')) as { rootfs: string; builtAt: string }) : undefined;
    return {
      name: BUILTIN_IMAGE,
      digest: `recipe:${recipe}`,
      source: 'builtin',
      base: null,
      created_at: built?.builtAt ?? new Date(0).toISOString(),
      disk: built?.rootfs ?? '',
      diskFormat: 'raw',
      ownFiles: built ? [built.rootfs] : [],
      config: EMPTY_CONFIG,
    };
  }

  async get(name: string): Promise<ImageManifest | undefined> {
    if (name === BUILTIN_IMAGE) return this.builtin();
    const p = this.refPath(name);
    if (!existsSync(p)) return undefined;
    return JSON.parse(readFileSync(p, 'utf8')) as ImageManifest;
  }

  /** Synchronous existence check (the built-in image always exists: it is built on first use). */
  has(name: string): boolean {
    return name === BUILTIN_IMAGE || existsSync(this.refPath(name));
  }

  names(): string[] {
    const dir = join(this.root, 'refs');
    const own = existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith('.json'))
          .map((f) => f.slice(0, -5))
      : [];
    return [BUILTIN_IMAGE, ...own.sort()];
  }

  async list(): Promise<ImageManifest[]> {
    const out: ImageManifest[] = [];
    for (const n of this.names()) {
      const m = await this.get(n);
      if (m) out.push(m);
    }
    return out;
  }

  sizeBytes(m: ImageManifest): number {
    return m.ownFiles.reduce((n, f) => n + blocksOf(f), 0);
  }

  /** Records (or replaces) a name; the caller has written the disk files first. */
  async put(m: ImageManifest): Promise<void> {
    if (m.name === BUILTIN_IMAGE) throw new Error(`"${BUILTIN_IMAGE}" is the built-in image and cannot be replaced`);
    if (!IMAGE_NAME.test(m.name)) throw new Error(`invalid image name "${m.name}"`);
    await mkdir(join(this.root, 'refs'), { recursive: true });
    const tmp = `${this.refPath(m.name)}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(m, null, 2));
    await rename(tmp, this.refPath(m.name));
  }

  /**
   * The disk to start a box or a build from; builds the built-in image when needed.
   * Undefined for unknown names.
   */
  async resolve(name: string): Promise<ResolvedImage | undefined> {
    if (name === BUILTIN_IMAGE) {
      await ensureAgentBinary();
      const img = await ensureGuestImage({ dataDir: this.dataDir });
      return { rootfs: img.rootfs, format: 'raw', digest: `recipe:${img.recipeHash}`, lineage: [name] };
    }
    const m = await this.get(name);
    return m && { rootfs: m.disk, format: m.diskFormat, digest: m.digest, lineage: await this.lineage(m) };
  }

  /** The image's name and its bases' names (a base removed since ends the walk there). */
  private async lineage(m: ImageManifest): Promise<string[]> {
    const names = [m.name];
    for (let base = m.base; base && !names.includes(base) && names.length < 32;) {
      names.push(base);
      base = base === BUILTIN_IMAGE ? null : ((await this.get(base))?.base ?? null);
    }
    return names;
  }

  /**
   * Forgets a name and deletes the files only it used. Files still in another image's
   * chain or under a box or checkpoint disk stay (they are shared blocks).
   */
  async remove(name: string): Promise<void> {
    const m = await this.get(name);
    if (!m || m.source === 'builtin') return;
    await rm(this.refPath(name), { force: true });
    const keep = await collectLayers(this.dataDir);
    for (const other of await this.list()) {
      if (!other.disk) continue;
      keep.add(resolve(other.disk));
      if (other.diskFormat === 'qcow2') for (const f of await backingChain(other.disk).catch(() => [])) keep.add(f);
    }
    for (const f of m.ownFiles) if (resolve(f).startsWith(this.root) && !keep.has(resolve(f))) await rm(f, { force: true });
  }
}

async function backingChain(disk: string): Promise<string[]> {
  const { stdout } = await execFileP('qemu-img', ['info', '-U', '--backing-chain', '--output=json', disk]);
  return (JSON.parse(stdout) as { filename: string }[]).slice(1).map((i) => resolve(i.filename));
}
