/**
 * runtime/guest-image/: the built-in `debian` guest image and the guest agent: building and
 * caching the image's parts (this file, its CLI guest-image-cli.ts: `npm run guest:build`)
 * and building the agent and the host-side helpers (agent-build.ts). Where the recipe and
 * the builds live: ../resources.ts.
 */
/**
 * Builds and caches the default `debian` guest image by running the recipe scripts in
 * resources/guest/image. Its parts, each cached under its own content hash so that an
 * agent change rebuilds only the initrd and a configuration change only the rootfs:
 *   images/debian/parts/base-<h>/tree/          (build-base.sh + packages.txt + slim files:
 *                                                the installed tree, the slow part)
 *   images/debian/parts/debs/                   (apt's downloaded .debs, across base keys)
 *   images/debian/parts/rootfs-<h>/rootfs.raw   (build-rootfs.sh + base: configuration, mke2fs)
 *   images/debian/parts/kernel-<h>/vmlinux      (build-kernel.sh + kernel version)
 *   images/debian/parts/initrd-<h>/initrd.img   (build-initrd.sh + init + agent + kernel)
 * and `images/debian/<recipe-hash>/` names the combination (symlinks + image.json).
 * Kernel flavours: `stock` (Debian's linux-image, modules in the initrd; default) or
 * `tiny` (built from linux-source-6.1, everything built in: faster boot, less memory,
 * ~5 min to build once). Chosen by the `kernel` option or BOX_GUEST_KERNEL.
 * Boxes must reference the part paths (stable as long as the part exists), never the
 * combination directory. BOX_IMAGE_CACHE, when set, replaces the data dir as the root.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, createWriteStream, existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { appendFile, mkdir, rename, rm, symlink, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { withFileLock } from '../file-lock.js';
import { killLeftoverRecipe, spawnRecipe } from './recipe-group.js';
import { boxEnv } from '../../../platform/settings.js';
import { AGENT_BUILD_PATH, RECIPE_DIR, RESOURCES_DIR } from '../resources.js';

export { AGENT_BUILD_PATH, RECIPE_DIR, RESOURCES_DIR };
const execFileP = promisify(execFile);

type ImagePhase = 'check' | 'base' | 'kernel' | 'rootfs' | 'initrd' | 'done';
export interface ImageProgress {
  phase: ImagePhase;
  /** Overall percent, 0–100. */
  percent: number;
  message: string;
}

export type KernelFlavour = 'stock' | 'tiny';

export interface GuestImage {
  name: 'debian';
  kernelFlavour: KernelFlavour;
  recipeHash: string;
  dir: string;
  kernel: string;
  initrd: string;
  rootfs: string;
  kernelVersion: string;
  /** Which agent went into the initrd: the built binary or the placeholder script. */
  agent: { path: string; placeholder: boolean };
  /** True when nothing had to be built. */
  cached: boolean;
}

interface EnsureGuestImageOptions {
  dataDir: string;
  onProgress?: (p: ImageProgress) => void;
  /** Agent binary to put into the initrd; defaults as described at guestAgentBinary(). */
  agentBinary?: string;
  /** Default: BOX_GUEST_KERNEL, else 'stock'. */
  kernel?: KernelFlavour;
}

export function kernelFlavour(opt?: KernelFlavour): KernelFlavour {
  const v = opt ?? boxEnv().guestKernel ?? 'stock';
  if (v !== 'stock' && v !== 'tiny') throw new Error(`unknown guest kernel flavour: ${v}`);
  return v;
}
const TINY_SOURCE = '/usr/src/linux-source-6.1.tar.xz';

/** BOX_AGENT_BINARY, else resources/guest/build/box-agent if built, else the placeholder. */
export function guestAgentBinary(): { path: string; placeholder: boolean } {
  const env = boxEnv().agentBinary;
  if (env) return { path: resolve(env), placeholder: false };
  if (existsSync(AGENT_BUILD_PATH)) return { path: AGENT_BUILD_PATH, placeholder: false };
  return { path: join(RECIPE_DIR, 'placeholder-agent.sh'), placeholder: true };
}

export function imageCacheRoot(dataDir: string): string {
  const cache = boxEnv().imageCache;
  return join(cache ? resolve(cache) : dataDir, 'images', 'debian');
}

function hashOf(parts: (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(createHash('sha256').update(p).digest());
  return h.digest('hex').slice(0, 16);
}
const recipeFile = (name: string) => readFileSync(join(RECIPE_DIR, name));

async function kernelVersion(): Promise<string> {
  const { stdout } = await execFileP('bash', ['-c', `source "${RECIPE_DIR}/common.sh"; kernel_version`]);
  return stdout.trim();
}

interface PartKeys {
  base: string;
  kernel: string;
  rootfs: string;
  initrd: string;
  recipe: string;
}

export async function computeImageKeys(agentPath: string, flavour: KernelFlavour = 'stock'): Promise<PartKeys & { kernelVersion: string }> {
  const common = recipeFile('common.sh');
  let kver: string;
  let kernel: string;
  if (flavour === 'tiny') {
    if (!existsSync(TINY_SOURCE)) throw new Error(`tiny guest kernel needs ${TINY_SOURCE} (apt-get install linux-source-6.1)`);
    const src = statSync(TINY_SOURCE);
    kver = 'tiny-6.1';
    kernel = hashOf([common, recipeFile('build-kernel-tiny.sh'), recipeFile('tiny-kernel.config'), `${src.size}:${src.mtimeMs}`]);
  } else {
    kver = await kernelVersion();
    const vmlinuz = statSync(`/boot/vmlinuz-${kver}`);
    kernel = hashOf([common, recipeFile('build-kernel.sh'), kver, `${vmlinuz.size}:${vmlinuz.mtimeMs}`]);
  }
  const base = hashOf([common, ...['build-base.sh', 'packages.txt', 'slim.control', 'slim-dpkg.cfg'].map(recipeFile)]);
  const rootfs = hashOf([common, recipeFile('build-rootfs.sh'), base, boxEnv().rootfsSize ?? '2G']);
  const initrd = hashOf([common, recipeFile('build-initrd.sh'), recipeFile('init'), readFileSync(agentPath), kernel]);
  return { base, kernel, rootfs, initrd, recipe: hashOf([kernel, rootfs, initrd]), kernelVersion: kver };
}

/** Runs one recipe script into `<finalDir>.tmp`, renaming it into place on success. */
async function buildPart(
  script: string,
  finalDir: string,
  args: string[],
  onLine: (percent: number, message: string) => void,
  env: Record<string, string> = {},
  recipeDir = RECIPE_DIR,
): Promise<void> {
  const tmp = `${finalDir}.tmp`;
  const group = `${finalDir}.group`;
  await killLeftoverRecipe(group); // a build a crashed service left running writes into tmp
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  const logPath = `${finalDir}.log`;
  const log = createWriteStream(logPath);
  const child = spawnRecipe('bash', [join(recipeDir, script), tmp, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } }, group);
  const code = await new Promise<number>((res, rej) => {
    let pending = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      log.write(chunk);
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const m = /^@@progress (\d+) (.*)$/.exec(line);
        if (m) onLine(Number(m[1]), m[2]);
      }
    });
    child.stderr!.pipe(log, { end: false });
    child.on('error', rej);
    child.on('close', (c) => res(c ?? 1));
  });
  await new Promise((r) => log.end(r));
  if (code !== 0) {
    const tail = readFileSync(logPath, 'utf8').split('\n').slice(-15).join('\n');
    await rm(tmp, { recursive: true, force: true });
    throw new Error(`guest image: ${script} failed (exit ${code}); log ${logPath}:\n${tail}`);
  }
  await rm(finalDir, { recursive: true, force: true });
  await rename(tmp, finalDir);
}

export async function ensureGuestImage(opts: EnsureGuestImageOptions): Promise<GuestImage> {
  const report = opts.onProgress ?? (() => {});
  const agent = opts.agentBinary ? { path: resolve(opts.agentBinary), placeholder: false } : guestAgentBinary();
  const root = imageCacheRoot(opts.dataDir);
  await mkdir(join(root, 'parts'), { recursive: true });
  const flavour = kernelFlavour(opts.kernel);
  const keys = await computeImageKeys(agent.path, flavour);
  const dirs = {
    base: join(root, 'parts', `base-${keys.base}`),
    kernel: join(root, 'parts', `kernel-${keys.kernel}`),
    rootfs: join(root, 'parts', `rootfs-${keys.rootfs}`),
    initrd: join(root, 'parts', `initrd-${keys.initrd}`),
  };
  const files = {
    base: join(dirs.base, 'tree'),
    kernel: join(dirs.kernel, 'vmlinux'),
    rootfs: join(dirs.rootfs, 'rootfs.raw'),
    initrd: join(dirs.initrd, 'initrd.img'),
  };
  const comboDir = join(root, keys.recipe);
  const result = (cached: boolean): GuestImage => ({
    name: 'debian',
    kernelFlavour: flavour,
    recipeHash: keys.recipe,
    dir: comboDir,
    kernel: files.kernel,
    initrd: files.initrd,
    rootfs: files.rootfs,
    kernelVersion: keys.kernelVersion,
    agent,
    cached,
  });
  const complete = () => existsSync(join(comboDir, 'image.json'));
  if (complete()) {
    report({ phase: 'done', percent: 100, message: 'guest image cached' });
    return result(true);
  }

  return withFileLock(
    join(root, '.build.lock'),
    async () => {
      if (complete()) return result(true);
      // Overall percent: base 0–75, rootfs 75–85, kernel 85–90, initrd 90–100. The base is
      // needed only when the rootfs is (a cache that has the rootfs may have dropped it).
      const tiny = flavour === 'tiny';
      type Step = [keyof typeof dirs, string, string[], number, number, Record<string, string>];
      const base: Step[] = existsSync(files.rootfs) ? [] : [['base', 'build-base.sh', [join(root, 'parts', 'debs')], 0, tiny ? 25 : 75, {}]];
      const steps: Step[] = [
        ...base,
        ['rootfs', 'build-rootfs.sh', [files.base], tiny ? 25 : 75, tiny ? 30 : 85, {}],
        ['kernel', tiny ? 'build-kernel-tiny.sh' : 'build-kernel.sh', [], tiny ? 30 : 85, 90, {}],
        ['initrd', 'build-initrd.sh', [agent.path], 90, 100, tiny ? { BOX_INITRD_MODULES: '' } : {}],
      ];
      for (const [part, script, args, from, to, env] of steps) {
        if (existsSync(files[part])) continue;
        report({ phase: part, percent: from, message: `building ${part}` });
        const onLine = (pct: number, message: string) => report({ phase: part, percent: Math.round(from + ((to - from) * pct) / 100), message });
        await buildPart(script, dirs[part], args, onLine, env);
      }
      await rm(comboDir, { recursive: true, force: true });
      await mkdir(comboDir, { recursive: true });
      await symlink(files.kernel, join(comboDir, 'vmlinux'));
      await symlink(files.initrd, join(comboDir, 'initrd.img'));
      await symlink(files.rootfs, join(comboDir, 'rootfs.raw'));
      const meta = { ...result(false), builtAt: new Date().toISOString(), keys };
      await writeFile(join(comboDir, 'image.json'), JSON.stringify(meta, null, 2));
      report({ phase: 'done', percent: 100, message: 'guest image ready' });
      return result(false);
    },
    { onWait: () => report({ phase: 'check', percent: 0, message: 'waiting for another build' }) },
  );
}

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
    await appendFile(join(recipe, 'packages.txt'), `\n# the image's PACKAGES\n${opts.packages.join('\n')}\n`);
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
  }
  used.add(join(root, 'parts', 'debs')); // shared by every base build
  return parts.map((p) => join(root, 'parts', p)).filter((p) => !p.endsWith('.log') && !p.endsWith('.group') && !used.has(p));
}
