/**
 * COPY sources of a Boxfile build: resolved inside the context directory (never outside
 * it, symlinks included), hashed by path, mode and content for the step cache, and listed
 * as the files and folders to write into the builder box.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, posix, relative, resolve, sep } from 'node:path';
import { BoxfileError } from './boxfile.js';

interface CopyItem {
  /** Host file (absent for a directory). */
  hostPath?: string;
  /** Absolute guest path. */
  guestPath: string;
  mode: number;
  dir: boolean;
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && rel !== '..');
}

/** The guest paths a COPY writes, in order (directories before their contents). */
export function copyPlan(context: string, sources: string[], dest: string, workdir: string, chmod: number | null, line: number): CopyItem[] {
  const root = realpathSync(context);
  const destAbs = posix.resolve(workdir || '/', dest);
  const items: CopyItem[] = [];
  const destIsDir = dest.endsWith('/') || sources.length > 1;
  for (const src of sources) {
    const abs = resolve(root, src);
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      throw new BoxfileError(line, `COPY source "${src}" does not exist in the context ${context}`);
    }
    if (!inside(root, real)) throw new BoxfileError(line, `COPY source "${src}" is outside the context`);
    const st = lstatSync(real);
    if (st.isDirectory()) {
      const walk = (host: string, guest: string) => {
        items.push({ guestPath: guest, mode: chmod ?? lstatSync(host).mode & 0o7777, dir: true });
        for (const name of readdirSync(host).sort()) {
          const h = join(host, name);
          const s = lstatSync(h);
          if (s.isSymbolicLink()) continue; // links could point outside the context; not copied
          if (s.isDirectory()) walk(h, posix.join(guest, name));
          else if (s.isFile()) items.push({ hostPath: h, guestPath: posix.join(guest, name), mode: chmod ?? s.mode & 0o7777, dir: false });
        }
      };
      walk(real, destAbs);
    } else {
      const guest = destIsDir ? posix.join(destAbs, posix.basename(src)) : destAbs;
      items.push({ hostPath: real, guestPath: guest, mode: chmod ?? st.mode & 0o7777, dir: false });
    }
  }
  return items;
}

/** A hash of what a COPY writes: paths, modes and file contents. */
export function hashCopy(items: CopyItem[]): string {
  const h = createHash('sha256');
  for (const i of items) {
    h.update(`${i.dir ? 'd' : 'f'} ${i.guestPath} ${i.mode.toString(8)}\n`);
    if (i.hostPath) h.update(createHash('sha256').update(readFileSync(i.hostPath)).digest());
  }
  return h.digest('hex');
}
