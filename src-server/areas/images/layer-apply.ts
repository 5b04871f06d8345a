/**
 * Applies one image layer (a tar stream) onto a staging directory, as OCI image layers
 * are applied: whiteouts (`.wh.NAME` deletes NAME from lower layers, `.wh..wh..opq`
 * empties a directory), owners, modes and mtimes kept. Written by hand on tar-stream
 * instead of running GNU tar because we run as root on the host: every path is resolved
 * inside the staging root (symlinks included, like a chroot would), so a hostile layer
 * cannot write through a symlink to the host. Device nodes are skipped (the guest's /dev
 * is a devtmpfs); they are counted in the result.
 */
import { createWriteStream, lstatSync, mkdirSync, readdirSync, readlinkSync } from 'node:fs';
import { chmod, lchown, link, lutimes, mkdir, rm, symlink } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { extract } from 'tar-stream';

interface ApplyOptions {
  /** Apply `.wh.*` entries (image layers); off for the outer archive. */
  whiteouts: boolean;
  /** lchown to the recorded uid/gid (image layers, as root); off for the outer archive. */
  owners: boolean;
}

interface ApplyResult {
  entries: number;
  skipped: string[];
}

/** Path components without `.`/empty ones; `..` pops but never above the root. */
function components(parts: string[]): string[] {
  const out: string[] = [];
  for (const p of parts) {
    if (!p || p === '.') continue;
    if (p === '..') out.pop();
    else out.push(p);
  }
  return out;
}

/**
 * The real path of `comps` under root, creating missing directories, following symlinks
 * as if root were `/`. A non-directory where a directory is needed is replaced.
 */
function resolveInRoot(root: string, comps: string[], hops = 0): string {
  let cur = root;
  for (const c of comps) {
    const next = join(cur, c);
    let st;
    try {
      st = lstatSync(next);
    } catch {
      mkdirSync(next, { mode: 0o755 });
      cur = next;
      continue;
    }
    if (st.isSymbolicLink()) {
      if (hops > 40) throw new Error(`too many symlinks resolving ${comps.join('/')}`);
      const target = readlinkSync(next);
      const from = target.startsWith('/') ? [] : relative(root, cur).split('/');
      cur = resolveInRoot(root, components([...from, ...target.split('/')]), hops + 1);
    } else if (st.isDirectory()) {
      cur = next;
    } else {
      throw new Error(`${relative(root, next)} is not a directory`);
    }
  }
  return cur;
}

/** zstd in this Node (22.15 and later): looked up, not imported by name, since a named
 * import made every `box image` command fail to load on older Nodes (engines allows 20.19). */
const zstdHere = () => (zlib as { createZstdDecompress?: () => Transform }).createZstdDecompress ?? null;

/** Decompresses gzip or zstd layers by their magic bytes; plain tar passes through. */
export async function openLayer(src: Readable, zstd: (() => Transform) | null = zstdHere()): Promise<Readable> {
  const first: Buffer = await new Promise((res, rej) => {
    const onReadable = () => {
      const b = src.read(4) as Buffer | null;
      if (b) {
        src.off('readable', onReadable);
        src.unshift(b);
        res(b);
      }
    };
    src.on('readable', onReadable);
    src.once('end', () => res(Buffer.alloc(0)));
    src.once('error', rej);
  });
  if (first[0] === 0x1f && first[1] === 0x8b) return src.pipe(zlib.createGunzip());
  if (first.readUInt32LE(0) === 0xfd2fb528) {
    if (!zstd)
      throw new Error(`this layer is zstd-compressed, which needs Node 22.15 or later (this is Node ${process.versions.node}); gzip and plain layers work`);
    return src.pipe(zstd());
  }
  return src;
}

export async function applyLayer(root: string, tarStream: Readable, opts: ApplyOptions): Promise<ApplyResult> {
  const ex = extract();
  const result: ApplyResult = { entries: 0, skipped: [] };
  const feeding = pipeline(tarStream, ex);
  for await (const entry of ex) {
    const h = entry.header;
    const comps = h.name.split('/').filter((p) => p && p !== '.');
    if (!comps.length || comps.includes('..')) {
      entry.resume();
      if (comps.length) result.skipped.push(h.name);
      continue;
    }
    result.entries++;
    const base = comps.pop()!;
    const dir = resolveInRoot(root, comps);
    if (opts.whiteouts && base === '.wh..wh..opq') {
      entry.resume();
      for (const f of readdirSync(dir)) await rm(join(dir, f), { recursive: true, force: true });
      continue;
    }
    if (opts.whiteouts && base.startsWith('.wh.')) {
      entry.resume();
      await rm(join(dir, base.slice(4)), { recursive: true, force: true });
      continue;
    }
    const dest = join(dir, base);
    const existing = (() => {
      try {
        return lstatSync(dest);
      } catch {
        return undefined;
      }
    })();
    if (existing && !(existing.isDirectory() && h.type === 'directory')) await rm(dest, { recursive: true, force: true });
    const mode = h.mode & 0o7777;
    switch (h.type) {
      case 'directory':
        await mkdir(dest, { recursive: true });
        entry.resume();
        break;
      case 'file':
      case 'contiguous-file':
        await pipeline(entry, createWriteStream(dest, { mode: 0o600 }));
        break;
      case 'symlink':
        entry.resume();
        await symlink(h.linkname, dest);
        break;
      case 'link': {
        entry.resume();
        const tcomps = h.linkname.split('/').filter((p) => p && p !== '.');
        if (tcomps.includes('..') || !tcomps.length) {
          result.skipped.push(h.name);
          continue;
        }
        const tbase = tcomps.pop()!;
        await link(join(resolveInRoot(root, tcomps), tbase), dest);
        continue; // a hard link shares the target's owner and mode
      }
      default:
        entry.resume();
        result.skipped.push(`${h.name} (${h.type})`);
        continue;
    }
    if (opts.owners) await lchown(dest, h.uid, h.gid);
    if (h.type !== 'symlink') await chmod(dest, opts.owners || h.type !== 'directory' ? mode : mode | 0o700);
    const t = h.mtime ?? new Date();
    await lutimes(dest, t, t).catch(() => {});
  }
  await feeding;
  return result;
}
