import { constants as C, type Stats } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { conflict, Forbidden, invalid } from '../../kernel/domain-errors.js';
import { removePath } from './file-ops.js';
import { writeVolumeFile } from './file-write.js';
import { missing, type VolumeRoot } from './safe-fs.js';
import { checkWriteDepth } from './volume-path.js';

/** One entry with its owner and times (E2B's VolumeEntryStat): `path` from the volume's root, "/"-led. */
interface ContentEntry {
  name: string;
  type: 'unknown' | 'file' | 'directory' | 'symlink';
  path: string;
  size: number;
  mode: number;
  uid: number;
  gid: number;
  atime: string;
  mtime: string;
  ctime: string;
  target?: string;
}

/** Owner and mode of what a create makes; unset: the mode given, the service user's owner. */
interface Attrs {
  mode?: number;
  uid?: number;
  gid?: number;
}

const NOFOLLOW_READ = C.O_RDONLY | C.O_NONBLOCK | C.O_NOFOLLOW;
const DIR_MODE = 0o777; // E2B's volume defaults (orchestrator/pkg/volumes): directories 0777, files 0666
const FILE_MODE = 0o666;
const rootRefused = () => invalid('Invalid path: it names the volume root.', 'path');

/**
 * A volume's files with owners and times, for E2B's volume content API: stat, recursive list,
 * make a folder, write, read, delete, change mode and owner. Built on VolumeRoot's confinement
 * (safe-fs.ts): every object is reached through a checked parent descriptor, a symlink is
 * followed only to a place inside the volume, and a final symlink is reported, not followed.
 * Volumes are the service user's host files (boxes mount them over 9p, security_model=none):
 * an owner other than the one the service may give is refused (403 naming uid or gid).
 */
export class VolumeContent {
  constructor(
    private root: VolumeRoot,
    private maxBytes: number,
  ) {}

  /** What `segs` names, a final symlink as a symlink (its target in `target`); 404 when missing. */
  async stat(segs: string[]): Promise<ContentEntry> {
    return this.withParent(segs, false, async (at, last) => {
      if (last === undefined) return entry([], await fs.stat(at));
      const st = await fs.lstat(`${at}/${last}`).catch(() => {
        throw missing();
      });
      const target = st.isSymbolicLink() ? await fs.readlink(`${at}/${last}`).catch(() => undefined) : undefined;
      return entry(segs, st, target);
    });
  }

  /** A directory's entries, `depth` levels down (E2B: 1..10), each directory followed by its own. */
  async list(segs: string[], depth: number): Promise<ContentEntry[]> {
    const out: ContentEntry[] = [];
    const walk = async (dir: string[], left: number) => {
      // the directory itself, opened through checked descriptors (a symlinked folder inside the volume is followed)
      const opened = await this.root.openParent([...dir, '.'], false);
      try {
        const names = (await fs.readdir(opened.at)).sort();
        for (const name of names) {
          const st = await fs.lstat(`${opened.at}/${name}`).catch(() => undefined); // removed meanwhile
          if (!st) continue;
          const target = st.isSymbolicLink() ? await fs.readlink(`${opened.at}/${name}`).catch(() => undefined) : undefined;
          out.push(entry([...dir, name], st, target));
          if (st.isDirectory() && left > 1) await walk([...dir, name], left - 1).catch(() => {}); // gone meanwhile
        }
      } finally {
        await opened.handle.close();
      }
    };
    const top = await this.stat(segs);
    if (top.type !== 'directory' && !(top.type === 'symlink' && (await this.root.lookup(segs)).type === 'directory'))
      throw conflict('The path is not a directory.', 'failed_precondition', 'path');
    await walk(segs, Math.max(depth, 1));
    return out;
  }

  /** A new directory (`force`: its missing parents too, and an existing directory is no error). */
  async makeDir(segs: string[], attrs: Attrs, force: boolean): Promise<ContentEntry> {
    if (segs.length === 0) throw rootRefused();
    checkWriteDepth(segs);
    return this.withParent(segs, force, async (at, last) => {
      const p = `${at}/${last}`;
      const made = await fs.mkdir(p, DIR_MODE).then(
        () => true,
        async (e: NodeJS.ErrnoException) => {
          if (e.code !== 'EEXIST') throw e;
          if (force && (await fs.lstat(p)).isDirectory()) return false;
          throw conflict(`Something already exists at ${show(segs)}.`, 'already_exists', 'path');
        },
      );
      if (made) await this.apply(p, { mode: attrs.mode ?? DIR_MODE, uid: attrs.uid, gid: attrs.gid });
      return entry(segs, await fs.lstat(p));
    });
  }

  /** Streams a file in (temp file + rename); without `force` an existing path is a 409 and missing parents a 404. */
  async writeFile(segs: string[], body: Readable, attrs: Attrs, force: boolean, signal?: AbortSignal): Promise<ContentEntry> {
    if (segs.length === 0) throw invalid('Invalid path: it names the volume root, not a file.', 'path');
    checkWriteDepth(segs);
    if (!force) {
      await this.withParent(segs, false, async (at, last) => {
        if (
          await fs.lstat(`${at}/${last}`).then(
            () => true,
            () => false,
          )
        )
          throw conflict(`A file already exists at ${show(segs)}: pass force to replace it.`, 'already_exists', 'path');
      });
    }
    await writeVolumeFile(this.root, segs, body, { mode: attrs.mode ?? FILE_MODE, createParents: force, maxBytes: this.maxBytes, signal });
    return this.withParent(segs, false, async (at, last) => {
      const p = `${at}/${last}`;
      await this.apply(p, { uid: attrs.uid, gid: attrs.gid });
      return entry(segs, await fs.lstat(p));
    });
  }

  /** A regular file opened for reading (following symlinks inside the volume). */
  readFile(segs: string[]) {
    return this.root.openRead(segs);
  }

  /** Deletes a file, a symlink (not its target) or a directory with everything in it. */
  async remove(segs: string[]): Promise<void> {
    if (segs.length === 0) throw invalid('Invalid path: the volume root cannot be deleted.', 'path');
    await removePath(this.root, segs, true);
  }

  /** Changes mode and owner (a symlink's target's, as chmod does); answers the entry. */
  async update(segs: string[], attrs: Attrs): Promise<ContentEntry> {
    const h = await this.open(segs);
    try {
      if (attrs.mode !== undefined) await h.chmod(attrs.mode);
      await chown(h, attrs);
      return entry(segs, await h.stat());
    } finally {
      await h.close();
    }
  }

  /** The object itself when it is no symlink, else the symlink's target inside the volume. */
  private async open(segs: string[]): Promise<FileHandle> {
    if (segs.length === 0) return this.root.openFollowing([]);
    const h = await this.withParent(segs, false, async (at, last) =>
      fs.open(`${at}/${last}`, NOFOLLOW_READ).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ELOOP') return undefined; // a symlink: its target, checked
        if (e.code === 'ENOENT') throw missing();
        throw e;
      }),
    );
    return h ?? this.root.openFollowing(segs);
  }

  /** Mode and owner of something just made at `p` (a path through a checked descriptor). */
  private async apply(p: string, attrs: Attrs) {
    const h = await fs.open(p, NOFOLLOW_READ);
    try {
      if (attrs.mode !== undefined) await h.chmod(attrs.mode); // exact bits, regardless of the umask
      await chown(h, attrs);
    } finally {
      await h.close();
    }
  }

  private async withParent<T>(segs: string[], create: boolean, fn: (at: string, last: string | undefined) => Promise<T>): Promise<T> {
    const dir = await this.root.openParent(segs.length ? segs : ['.'], create);
    try {
      return await fn(dir.at, segs[segs.length - 1]);
    } finally {
      await dir.handle.close();
    }
  }
}

async function chown(h: FileHandle, attrs: Attrs) {
  if (attrs.uid === undefined && attrs.gid === undefined) return;
  const st = await h.stat();
  await h.chown(attrs.uid ?? st.uid, attrs.gid ?? st.gid).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPERM') throw e;
    const param = attrs.uid !== undefined && attrs.uid !== st.uid ? 'uid' : 'gid';
    throw new Forbidden(
      `Invalid ${param}: Box's volumes are host files of the service's user (uid ${st.uid}, gid ${st.gid}); the service cannot give them to ${param} ${attrs[param]}.`,
      { param },
    );
  });
}

const show = (segs: string[]) => `/${segs.join('/')}`;

function entry(segs: string[], st: Stats, target?: string): ContentEntry {
  const type = st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'unknown';
  return {
    name: segs[segs.length - 1] ?? '/',
    type,
    path: show(segs),
    size: st.size,
    mode: st.mode & 0o777,
    uid: st.uid,
    gid: st.gid,
    atime: st.atime.toISOString(),
    mtime: st.mtime.toISOString(),
    ctime: st.ctime.toISOString(),
    ...(target !== undefined ? { target } : {}),
  };
}
