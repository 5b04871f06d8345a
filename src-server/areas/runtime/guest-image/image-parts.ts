/**
 * Builds over the guest image's recipe other than the built-in image (a Boxfile's
 * `PACKAGES`), and the image cache's bookkeeping (parts no image references).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { appendFile, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildPart, imageCacheRoot, RECIPE_DIR, type GuestImage, type PartKeys } from './guest-image.js';

/**
 * The built-in image's root file system with more Debian packages (a Boxfile's `PACKAGES`,
 * images/builder.ts): the same recipe (build-base.sh: mmdebstrap on the host, apt's .debs
 * shared with the built-in image's builds; build-rootfs.sh: the configuration and mke2fs)
 * run from a copy whose packages.txt lists them too, so the built-in image's own parts and
 * keys stay as they are. Writes the ext4 image at `out` (a few minutes, where apt in a
 * builder box under TCG took tens of minutes); the installed tree is dropped after.
 */
interface PackagesRootfs {
  dataDir: string;
  packages: string[];
  out: string;
  sizeGib: number;
  onProgress?: (message: string) => void;
}
export async function buildPackagesRootfs(opts: PackagesRootfs): Promise<void> {
  const root = imageCacheRoot(opts.dataDir);
  await mkdir(join(root, 'parts'), { recursive: true });
  const recipe = mkdtempSync(join(tmpdir(), 'box-packages-recipe-'));
  const work = `${opts.out}.work`;
  try {
    cpSync(RECIPE_DIR, recipe, { recursive: true });
    // the built-in image's code layer and the image's PACKAGES, in one install
    const code = readFileSync(join(RECIPE_DIR, 'packages-code.txt'), 'utf8');
    await appendFile(join(recipe, 'packages.txt'), `\n${code}\n# the image's PACKAGES\n${opts.packages.join('\n')}\n`);
    const say = (step: string) => (pct: number, message: string) => opts.onProgress?.(`${step} ${pct}%: ${message}`);
    await mkdir(work, { recursive: true });
    await buildPart('build-base.sh', join(work, 'base'), [join(root, 'parts', 'debs')], say('packages'), {}, recipe);
    const size = { BOX_ROOTFS_SIZE: `${opts.sizeGib}G` };
    await buildPart('build-rootfs.sh', join(work, 'rootfs'), [join(work, 'base', 'tree')], say('root file system'), size, recipe);
    await rename(join(work, 'rootfs', 'rootfs.raw'), opts.out);
  } finally {
    await rm(recipe, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  }
}

/** Lists part directories no combination references (for a later garbage collector). */
export async function unreferencedParts(dataDir: string): Promise<string[]> {
  const root = imageCacheRoot(dataDir);
  const parts = await readdir(join(root, 'parts')).catch(() => [] as string[]);
  const used = new Set<string>();
  for (const d of await readdir(root)) {
    const meta = join(root, d, 'image.json');
    if (!existsSync(meta)) continue;
    const m = JSON.parse(readFileSync(meta, 'utf8')) as GuestImage & { keys?: Partial<PartKeys> };
    for (const f of [m.kernel, m.initrd, m.rootfs]) used.add(dirname(f));
    if (m.keys?.base) used.add(join(root, 'parts', `base-${m.keys.base}`));
    if (m.keys?.layer && m.codeLayer) used.add(join(root, 'parts', `layer-${m.keys.layer}`));
  }
  used.add(join(root, 'parts', 'debs')); // shared by every base build
  return parts.map((p) => join(root, 'parts', p)).filter((p) => !p.endsWith('.log') && !p.endsWith('.group') && !used.has(p));
}
