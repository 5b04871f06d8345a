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
 *   images/debian/parts/layer-<h>/upper/        (build-layer.sh + packages-code.txt + base: the
 *                                                code interpreter's layer, an overlayfs upper dir)
 *   images/debian/parts/rootfs-<h>/rootfs.raw   (build-rootfs.sh + base [+ layer]: configuration, mke2fs)
 *   images/debian/parts/kernel-<h>/vmlinux      (build-kernel.sh + kernel version)
 *   images/debian/parts/initrd-<h>/initrd.img   (build-initrd.sh + init + agent + kernel)
 * and `images/debian/<recipe-hash>/` names the combination (symlinks + image.json). Two
 * combinations per recipe: the base alone (`layers: 'base'`, what a fresh install's first box
 * boots from) and the full image with the code layer (the default).
 * Kernel flavours: `stock` (Debian's linux-image, modules in the initrd; default) or
 * `tiny` (built from linux-source-6.1, everything built in: faster boot, less memory,
 * ~5 min to build once). Chosen by the `kernel` option or BOX_GUEST_KERNEL.
 * Boxes must reference the part paths (stable as long as the part exists), never the
 * combination directory. BOX_IMAGE_CACHE, when set, replaces the data dir as the root.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { withFileLock } from '../file-lock.js';
import { killLeftoverRecipe, spawnRecipe } from './recipe-group.js';
import { boxEnv } from '../../../platform/settings.js';
import { AGENT_BUILD_PATH, RECIPE_DIR, RESOURCES_DIR } from '../resources.js';

export { AGENT_BUILD_PATH, RECIPE_DIR, RESOURCES_DIR };
const execFileP = promisify(execFile);

type ImagePhase = 'check' | 'base' | 'layer' | 'kernel' | 'rootfs' | 'initrd' | 'done';
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
  /** Whether the code interpreter's layer (packages-code.txt) is in the root fs: false for the base image. */
  codeLayer: boolean;
}

interface EnsureGuestImageOptions {
  dataDir: string;
  onProgress?: (p: ImageProgress) => void;
  /** Agent binary to put into the initrd; defaults as described at guestAgentBinary(). */
  agentBinary?: string;
  /** Default: BOX_GUEST_KERNEL, else 'stock'. */
  kernel?: KernelFlavour;
  /**
   * 'full' (default): the base with the code interpreter's layer over it. 'base': the base
   * alone (no Jupyter kernel, no data stack, no Node): what a fresh install's first box
   * boots from while the layer is built (issue 35).
   */
  layers?: 'base' | 'full';
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

export interface PartKeys {
  base: string;
  layer: string;
  kernel: string;
  /** The root fs of the base alone, and with the code layer over it. */
  rootfsBase: string;
  rootfs: string;
  initrd: string;
  /** The image of the base alone, and the full one: what names their combination directories. */
  recipeBase: string;
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
  const layer = hashOf([common, recipeFile('build-layer.sh'), recipeFile('packages-code.txt'), base]);
  const size = boxEnv().rootfsSize ?? '2G';
  const rootfsBase = hashOf([common, recipeFile('build-rootfs.sh'), base, size]);
  const rootfs = hashOf([common, recipeFile('build-rootfs.sh'), base, layer, size]);
  const initrd = hashOf([common, recipeFile('build-initrd.sh'), recipeFile('init'), readFileSync(agentPath), kernel]);
  return {
    base,
    layer,
    kernel,
    rootfsBase,
    rootfs,
    initrd,
    recipeBase: hashOf([kernel, rootfsBase, initrd]),
    recipe: hashOf([kernel, rootfs, initrd]),
    kernelVersion: kver,
  };
}

/** Runs one recipe script into `<finalDir>.tmp`, renaming it into place on success. */
export async function buildPart(
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

/** The full image (base and code layer) when it is in the cache, else undefined (nothing is built). */
export async function cachedGuestImage(opts: Pick<EnsureGuestImageOptions, 'dataDir' | 'kernel'>): Promise<GuestImage | undefined> {
  const agent = guestAgentBinary();
  const keys = await computeImageKeys(agent.path, kernelFlavour(opts.kernel));
  if (!existsSync(join(imageCacheRoot(opts.dataDir), keys.recipe, 'image.json'))) return undefined;
  return ensureGuestImage({ ...opts, layers: 'full' });
}

export async function ensureGuestImage(opts: EnsureGuestImageOptions): Promise<GuestImage> {
  const report = opts.onProgress ?? (() => {});
  const agent = opts.agentBinary ? { path: resolve(opts.agentBinary), placeholder: false } : guestAgentBinary();
  const root = imageCacheRoot(opts.dataDir);
  await mkdir(join(root, 'parts'), { recursive: true });
  const flavour = kernelFlavour(opts.kernel);
  const keys = await computeImageKeys(agent.path, flavour);
  const full = (opts.layers ?? 'full') === 'full';
  const dirs = {
    base: join(root, 'parts', `base-${keys.base}`),
    layer: join(root, 'parts', `layer-${keys.layer}`),
    kernel: join(root, 'parts', `kernel-${keys.kernel}`),
    rootfs: join(root, 'parts', `rootfs-${full ? keys.rootfs : keys.rootfsBase}`),
    initrd: join(root, 'parts', `initrd-${keys.initrd}`),
  };
  const files = {
    base: join(dirs.base, 'tree'),
    layer: join(dirs.layer, 'upper'),
    kernel: join(dirs.kernel, 'vmlinux'),
    rootfs: join(dirs.rootfs, 'rootfs.raw'),
    initrd: join(dirs.initrd, 'initrd.img'),
  };
  const recipeHash = full ? keys.recipe : keys.recipeBase;
  const comboDir = join(root, recipeHash);
  const result = (cached: boolean): GuestImage => ({
    name: 'debian',
    kernelFlavour: flavour,
    recipeHash,
    dir: comboDir,
    kernel: files.kernel,
    initrd: files.initrd,
    rootfs: files.rootfs,
    kernelVersion: keys.kernelVersion,
    agent,
    cached,
    codeLayer: full,
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
      // Overall percent. The base: base 0–75, rootfs 75–85, kernel 85–90, initrd 90–100.
      // The full image from nothing: base 0–45, layer 45–80, then the same. The full image
      // over a built base tree: layer 0–75, then the same. The base and the layer are
      // needed only when the rootfs is (a cache that has the rootfs may have dropped them).
      const tiny = flavour === 'tiny';
      type Step = [keyof typeof dirs, string, string[], number, number, Record<string, string>];
      const needRootfs = !existsSync(files.rootfs);
      const needBase = needRootfs && !existsSync(files.base);
      const needLayer = full && needRootfs && !existsSync(files.layer);
      const tree: number = tiny ? 25 : 75; // where the tree steps (base, layer) end
      const baseTo = needLayer ? Math.round(tree * 0.55) : tree;
      const debs = join(root, 'parts', 'debs');
      const steps: Step[] = [
        ...(needBase ? ([['base', 'build-base.sh', [debs], 0, baseTo, {}]] as Step[]) : []),
        ...(needLayer
          ? ([['layer', 'build-layer.sh', [files.base, debs, join(RECIPE_DIR, 'packages-code.txt')], needBase ? baseTo : 0, tree, {}]] as Step[])
          : []),
        ['rootfs', 'build-rootfs.sh', [files.base, ...(full ? [files.layer] : [])], tree, tiny ? 30 : 85, {}],
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
