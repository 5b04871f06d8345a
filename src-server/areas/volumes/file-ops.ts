import { constants as C } from 'node:fs';
import fs from 'node:fs/promises';
import { invalid, conflict } from '../../kernel/domain-errors.js';
import { missing, type VolumeRoot } from './safe-fs.js';

/**
 * New folder, delete and rename inside one volume, with the confinement rules of
 * safe-fs.ts: the parent directory is reached through a checked descriptor, every
 * operation names its object relative to that descriptor (`/proc/self/fd/N/name`), and
 * the object itself is never followed if it is a symlink (a link is removed or renamed,
 * not its target). A recursive delete walks each directory through its own descriptor
 * opened with O_NOFOLLOW, so a directory swapped for a symlink meanwhile stops the walk
 * instead of leading outside the volume.
 */
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;

const rootRefused = (param: string) => invalid(`Invalid ${param}: it names the volume root.`, param);
const exists = () => conflict('Something already exists at that path.', 'already_exists');

export async function makeDirectory(root: VolumeRoot, segs: string[]) {
  if (segs.length === 0) throw rootRefused('path');
  const dir = await root.openParent(segs, true);
  try {
    await fs.mkdir(`${dir.at}/${segs[segs.length - 1]}`, 0o755).catch((e: NodeJS.ErrnoException) => {
      throw e.code === 'EEXIST' ? exists() : e;
    });
  } finally {
    await dir.handle.close();
  }
  return root.lookup(segs);
}

export async function removePath(root: VolumeRoot, segs: string[], recursive: boolean) {
  if (segs.length === 0) throw rootRefused('path');
  const dir = await root.openParent(segs, false);
  try {
    const target = `${dir.at}/${segs[segs.length - 1]}`;
    const st = await fs.lstat(target).catch(() => {
      throw missing();
    });
    if (!st.isDirectory()) return void (await fs.unlink(target));
    if (recursive) await emptyDirectory(target);
    await fs.rmdir(target).catch((e: NodeJS.ErrnoException) => {
      throw e.code === 'ENOTEMPTY' || e.code === 'EEXIST'
        ? conflict('The folder is not empty: delete its contents first, or ask for a recursive delete.', 'failed_precondition')
        : e;
    });
  } finally {
    await dir.handle.close();
  }
}

/** Removes everything below `at` (a path through a checked descriptor), never following a link. */
async function emptyDirectory(at: string, depth = 0): Promise<void> {
  if (depth > 256) throw conflict('The folder is nested too deeply to delete here.', 'failed_precondition');
  const h = await fs.open(at, DIR_FLAGS).catch(() => {
    throw conflict('The folder changed while it was being deleted.', 'failed_precondition');
  });
  try {
    const base = `/proc/self/fd/${h.fd}`;
    for (const name of await fs.readdir(base)) {
      const child = `${base}/${name}`;
      const st = await fs.lstat(child).catch(() => undefined);
      if (!st) continue;
      if (st.isDirectory()) {
        await emptyDirectory(child, depth + 1);
        await fs.rmdir(child);
      } else await fs.unlink(child);
    }
  } finally {
    await h.close();
  }
}

export async function movePath(root: VolumeRoot, from: string[], to: string[]) {
  if (from.length === 0) throw rootRefused('from');
  if (to.length === 0) throw rootRefused('to');
  if (to.length > from.length && from.every((s, i) => to[i] === s)) throw invalid('Invalid to: a folder cannot move into itself.', 'to');
  const src = await root.openParent(from, false);
  try {
    const dst = await root.openParent(to, false);
    try {
      const a = `${src.at}/${from[from.length - 1]}`;
      const b = `${dst.at}/${to[to.length - 1]}`;
      await fs.lstat(a).catch(() => {
        throw missing();
      });
      if (
        await fs.lstat(b).then(
          () => true,
          () => false,
        )
      )
        throw exists();
      await fs.rename(a, b);
    } finally {
      await dst.handle.close();
    }
  } finally {
    await src.handle.close();
  }
  return root
    .lookup(to)
    .catch(() =>
      root.lookup(to.slice(0, -1)).then(() => ({ name: to[to.length - 1]!, type: 'symlink' as const, size: 0, modified_time: Date.now() / 1000, mode: 0o777 })),
    );
}
