import { constants as C, type Stats } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { VolumeEntry } from '../contract/volumes.js';
import { ApiError, conflict, notFound } from '../http/errors.js';

/**
 * File access confined to one volume root. The volume is writable by boxes, so any
 * component may be a symlink pointing anywhere, and may change between two calls.
 * Contract: nothing outside the root's real path is ever read, listed, stat'ed or written.
 * How: every path is resolved with realpath and must stay inside the root; then the
 * object is opened (O_NOFOLLOW on the resolved path) and, on Linux, the open descriptor's
 * real location (/proc/self/fd/N) is checked again, so a symlink swapped in between the
 * two steps is caught. Further lookups go through that descriptor (`/proc/self/fd/N/name`
 * resolves like openat), never through the path string again.
 */
const PROC_FD = process.platform === 'linux';
const READ_FLAGS = C.O_RDONLY | C.O_NONBLOCK | C.O_NOFOLLOW; // NONBLOCK: opening a FIFO must not hang

const missing = (what = 'No such file or directory on the volume.') => notFound(what, 'not_found');
const notADirectory = () => conflict('The path is not a directory.', 'failed_precondition');

/** The service may not read the object (e.g. mode 000 written from inside a box). */
class Unreadable extends ApiError {
  constructor() {
    super(409, 'conflict_error', 'The path exists but is not readable.', { code: 'failed_precondition' });
  }
}

interface Opened {
  handle: FileHandle;
  /** Where lookups below this object go: the descriptor on Linux, the real path elsewhere. */
  at: string;
}

export class VolumeRoot {
  private real?: string;
  constructor(readonly dir: string) {}

  private async root(): Promise<string> {
    try {
      return (this.real ??= await fs.realpath(this.dir));
    } catch {
      throw missing('The volume has no data directory.');
    }
  }

  private inside(real: string, root: string) {
    return real === root || real.startsWith(root + path.sep);
  }

  /** Real path of `segs` with every symlink followed; 404 if missing, dangling, looping or outside. */
  private async resolve(segs: string[]): Promise<string> {
    const root = await this.root();
    let real: string;
    try {
      real = await fs.realpath(path.join(root, ...segs));
    } catch {
      throw missing();
    }
    if (!this.inside(real, root)) throw missing();
    return real;
  }

  /** Opens `real` and proves the descriptor still lies inside the root. */
  private async openChecked(real: string, flags: number): Promise<Opened> {
    let handle: FileHandle;
    try {
      handle = await fs.open(real, flags);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') throw notADirectory();
      if (code === 'EACCES' || code === 'EPERM') throw new Unreadable();
      throw missing();
    }
    if (!PROC_FD) return { handle, at: real };
    const at = `/proc/self/fd/${handle.fd}`;
    const now = await fs.readlink(at).catch(() => '');
    if (!this.inside(now, await this.root())) {
      await handle.close();
      throw missing();
    }
    return { handle, at };
  }

  /** What `segs` names, following symlinks (spec: path lookup). */
  async lookup(segs: string[]): Promise<VolumeEntry> {
    const real = await this.resolve(segs);
    let st: Stats;
    try {
      const o = await this.openChecked(real, READ_FLAGS);
      try {
        st = await o.handle.stat();
      } finally {
        await o.handle.close();
      }
    } catch (e) {
      // Unreadable objects cannot be opened; their resolved path was checked already.
      if (!(e instanceof Unreadable)) throw e;
      st = await fs.lstat(real).catch(() => {
        throw missing();
      });
    }
    return toEntry(segs.length ? segs[segs.length - 1]! : '/', st);
  }

  /** Immediate entries of a directory, sorted by name; symlinks are reported as symlinks. */
  async list(segs: string[]): Promise<VolumeEntry[]> {
    const real = await this.resolve(segs);
    const dir = await this.openChecked(real, READ_FLAGS | C.O_DIRECTORY);
    try {
      const names = (
        await fs.readdir(dir.at).catch(() => {
          throw new Unreadable();
        })
      ).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const entries = await Promise.all(
        names.map(async (name) => {
          const st = await fs.lstat(`${dir.at}/${name}`).catch(() => undefined); // removed meanwhile
          return st && toEntry(name, st);
        }),
      );
      return entries.filter((e): e is VolumeEntry => e !== undefined);
    } finally {
      await dir.handle.close();
    }
  }

  /** Opens a regular file for reading (following symlinks); 409 for a directory or special file. */
  async openRead(segs: string[]): Promise<{ handle: FileHandle; stat: Stats }> {
    const real = await this.resolve(segs);
    const o = await this.openChecked(real, READ_FLAGS);
    const stat = await o.handle.stat();
    if (!stat.isFile()) {
      await o.handle.close();
      throw conflict(stat.isDirectory() ? 'The path is a directory, not a file.' : 'The path is not a regular file.', 'failed_precondition');
    }
    return { handle: o.handle, stat };
  }

  /**
   * Opens the directory that will hold `segs`' last component, creating missing parents
   * when asked. Each step opens the next directory through the previous descriptor and
   * checks where it really is, so a symlinked parent can never lead outside.
   */
  async openParent(segs: string[], createParents: boolean): Promise<Opened> {
    let dir = await this.openChecked(await this.root(), READ_FLAGS | C.O_DIRECTORY);
    try {
      for (const comp of segs.slice(0, -1)) {
        const p = `${dir.at}/${comp}`;
        let st = await fs.lstat(p).catch(() => undefined);
        if (!st && createParents) {
          await fs.mkdir(p, 0o755).catch((e: NodeJS.ErrnoException) => {
            if (e.code !== 'EEXIST') throw e;
          });
          st = await fs.lstat(p).catch(() => undefined);
        }
        if (!st) throw missing('A parent directory of the path does not exist.');
        const real = await fs.realpath(p).catch(() => {
          throw missing();
        });
        if (!this.inside(real, await this.root())) throw missing();
        const next = await this.openChecked(real, READ_FLAGS | C.O_DIRECTORY);
        await dir.handle.close();
        dir = next;
      }
      return dir;
    } catch (e) {
      await dir.handle.close().catch(() => {});
      throw e;
    }
  }
}

function toEntry(name: string, st: Stats): VolumeEntry {
  const type = st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other';
  return { name, type, size: st.size, modified_time: st.mtimeMs / 1000, mode: st.mode & 0o7777 };
}
