/**
 * `box image import ARCHIVE.tar -t NAME`: a `docker save` archive (manifest.json) or an
 * OCI image layout archive (index.json + blobs/) becomes an ext4 disk the built-in kernel
 * and initrd boot: layers applied in order into a staging directory (layer-apply.ts), the
 * mount points our initramfs needs added, `mke2fs -d` writes the filesystem (no loop
 * mounts). The agent is not copied into the disk: the shared initramfs installs it at
 * /.box/agent on every boot. The image's Env, WorkingDir, User, Entrypoint+Cmd become the
 * image's run config, honoured as a Boxfile's ENV/WORKDIR/USER/CMD.
 * Content-addressed: the blob is named by the archive's sha256, so importing the same
 * archive under another name shares the disk.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { ImageRunConfig } from '@box/contract/images';
import type { ImageManifest, ImageStore } from './image-store.js';
import { applyLayer, openLayer } from './layer-apply.js';

const execFileP = promisify(execFile);

/** Size of the ext4 of an imported image: sparse, so only the files' blocks cost disk. Matches the smallest box disk. */
const OCI_DISK_SIZE = '4G';

interface ImportProgress {
  step: string;
  message: string;
}

async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  await pipeline(createReadStream(path), h);
  return h.digest('hex');
}

interface OciConfig {
  config?: { Env?: string[] | null; Cmd?: string[] | null; Entrypoint?: string[] | null; WorkingDir?: string; User?: string };
}

const readJson = <T>(p: string): T => JSON.parse(readFileSync(p, 'utf8')) as T;

/** Finds the config and ordered layer files in an unpacked archive (docker save or OCI layout). */
function locateImage(outer: string): { config: OciConfig; layers: string[] } {
  if (existsSync(join(outer, 'manifest.json'))) {
    const [m] = readJson<{ Config: string; Layers: string[] }[]>(join(outer, 'manifest.json'));
    if (!m) throw new Error('manifest.json lists no image');
    return { config: readJson<OciConfig>(join(outer, m.Config)), layers: m.Layers.map((l) => join(outer, l)) };
  }
  if (!existsSync(join(outer, 'index.json'))) throw new Error('not an image archive: neither manifest.json (docker save) nor index.json (OCI layout) found');
  const blob = (digest: string) => {
    const [alg, hex] = digest.split(':');
    if (!alg || !hex || !/^[a-z0-9]+$/.test(alg) || !/^[a-f0-9]+$/.test(hex)) throw new Error(`bad digest ${digest}`);
    return join(outer, 'blobs', alg, hex);
  };
  type Desc = { digest: string; mediaType?: string; platform?: { architecture?: string } };
  let doc = readJson<{ manifests?: Desc[]; config?: Desc; layers?: Desc[] }>(join(outer, 'index.json'));
  for (let depth = 0; doc.manifests && depth < 4; depth++) {
    const pick = doc.manifests.find((d) => !d.platform || d.platform.architecture === 'amd64') ?? doc.manifests[0];
    if (!pick) throw new Error('index.json lists no manifest');
    doc = readJson(blob(pick.digest));
  }
  if (!doc.config || !doc.layers) throw new Error('no image manifest found in index.json');
  return { config: readJson<OciConfig>(blob(doc.config.digest)), layers: doc.layers.map((l) => blob(l.digest)) };
}

function runConfigOf(c: OciConfig): ImageRunConfig {
  const cfg = c.config ?? {};
  const env: Record<string, string> = {};
  for (const kv of cfg.Env ?? []) {
    const i = kv.indexOf('=');
    if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  const cmd = [...(cfg.Entrypoint ?? []), ...(cfg.Cmd ?? [])];
  return { env, workdir: cfg.WorkingDir || null, user: cfg.User || null, cmd: cmd.length ? cmd : null };
}

/**
 * Writes a bootable ext4 from a staging tree: adds the mount points the initramfs moves into
 * it. The file is sparse and reads zeros, so inode tables and journal need no zeroing (lazy
 * init): a busybox image costs ~4 MiB on disk instead of ~70.
 */
async function makeExt4(tree: string, out: string, size = OCI_DISK_SIZE): Promise<void> {
  for (const d of ['dev', 'proc', 'sys', 'run', 'tmp', '.box', 'var/log', 'etc']) await mkdir(join(tree, d), { recursive: true });
  await chmod(join(tree, 'tmp'), 0o1777);
  await rm(`${out}.tmp`, { force: true });
  await execFileP('mke2fs', [
    '-q',
    '-F',
    '-t',
    'ext4',
    '-L',
    'boxroot',
    '-m',
    '0',
    '-E',
    'root_owner=0:0,lazy_itable_init=1,lazy_journal_init=1',
    '-d',
    tree,
    `${out}.tmp`,
    size,
  ]);
  await rename(`${out}.tmp`, out);
}

export async function importOciArchive(
  store: ImageStore,
  archive: string,
  name: string,
  onProgress: (p: ImportProgress) => void = () => {},
): Promise<ImageManifest> {
  onProgress({ step: 'digest', message: `hashing ${archive}` });
  const hex = await sha256File(archive);
  const blob = join(store.blobsDir, `${hex}.raw`);
  const work = join(store.root, 'tmp');
  await mkdir(work, { recursive: true });
  await mkdir(store.blobsDir, { recursive: true });
  const tmp = await mkdtemp(join(work, 'import-'));
  try {
    const outer = join(tmp, 'archive');
    await mkdir(outer);
    onProgress({ step: 'unpack', message: 'reading the archive' });
    await applyLayer(outer, createReadStream(archive), { whiteouts: false, owners: false });
    const { config, layers } = locateImage(outer);
    if (!existsSync(blob)) {
      const tree = join(tmp, 'rootfs');
      await mkdir(tree);
      for (const [i, layer] of layers.entries()) {
        onProgress({ step: 'layer', message: `applying layer ${i + 1}/${layers.length}` });
        const r = await applyLayer(tree, await openLayer(createReadStream(layer)), { whiteouts: true, owners: true });
        if (r.skipped.length)
          onProgress({ step: 'layer', message: `skipped ${r.skipped.length} entries (devices, unsafe paths): ${r.skipped.slice(0, 5).join(', ')}` });
      }
      onProgress({ step: 'ext4', message: `writing the ext4 disk (${OCI_DISK_SIZE}, sparse)` });
      await makeExt4(tree, blob);
    } else {
      onProgress({ step: 'ext4', message: 'same archive already imported: sharing its disk' });
    }
    const m: ImageManifest = {
      name,
      digest: `sha256:${hex}`,
      source: 'oci',
      base: null,
      created_at: new Date().toISOString(),
      disk: blob,
      diskFormat: 'raw',
      ownFiles: [blob],
      config: runConfigOf(config),
    };
    await store.put(m);
    return m;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
