import { constants as C, type Stats } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { VolumeEntry } from '@box/contract/volumes';
import { clientAborted, conflict, Conflict, DomainError, notFound } from '../../kernel/domain-errors.js';

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

export const missing = (what = 'No such file or directory on the volume.') => notFound(what, 'not_found');
const notADirectory = () => conflict('The path is not a directory.', 'failed_precondition');

/** The service may not read the object (e.g. mode 000 written from inside a box). */
class Unreadable extends Conflict {
  constructor() {
    super('The path exists but is not readable.', { code: 'failed_precondition' });
  }
}

interface Opened {
  handle: FileHandle;
  /** Where lookups below this object go: the descriptor on Linux, the real path elsewhere. */
  at: string;
}

export class VolumeRoot {
  private real?: string;
  /**
   * Where uploads are assembled: beside the volume's data dir, never inside it, so a
   * partial upload is never listed, read or seen by a box, and a crash's leftovers are
   * swept at start without walking the volume (same filesystem: rename stays atomic).
   */
  readonly tempDir: string;
  constructor(readonly dir: string) {
    this.tempDir = path.join(path.dirname(dir), 'tmp');
  }

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

  /**
   * Immediate entries of a directory, sorted by name, symlinks reported as symlinks; in
   * batches, so a huge directory costs its names in memory, never all its entries at once.
   * Resolution errors (404, 409) are thrown before the first batch.
   */
  async listBatches(segs: string[], batchSize = 256): Promise<AsyncGenerator<VolumeEntry[]>> {
    const real = await this.resolve(segs);
    const dir = await this.openChecked(real, READ_FLAGS | C.O_DIRECTORY);
    let names: string[];
    try {
      names = (
        await fs.readdir(dir.at).catch(() => {
          throw new Unreadable();
        })
      ).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    } catch (e) {
      await dir.handle.close();
      throw e;
    }
    return (async function* () {
      try {
        for (let i = 0; i < names.length; i += batchSize) {
          const batch = await Promise.all(
            names.slice(i, i + batchSize).map(async (name) => {
              const st = await fs.lstat(`${dir.at}/${name}`).catch(() => undefined); // removed meanwhile
              return st && toEntry(name, st);
            }),
          );
          yield batch.filter((e): e is VolumeEntry => e !== undefined);
        }
      } finally {
        await dir.handle.close();
      }
    })();
  }

  /** Every entry at once (small directories, tests). */
  async list(segs: string[]): Promise<VolumeEntry[]> {
    const out: VolumeEntry[] = [];
    for await (const batch of await this.listBatches(segs)) out.push(...batch);
    return out;
  }

  /** Opens what `segs` names, following symlinks, for reading its attributes or changing its mode (checked inside the root). */
  async openFollowing(segs: string[]): Promise<FileHandle> {
    return (await this.openChecked(await this.resolve(segs), READ_FLAGS)).handle;
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
    // A hard link cannot be told from its other names: one made on the host to a file
    // outside the volume would be served (issue 28). Uploads replace files (rename), so
    // the API never writes through a link; reads refuse any file with more than one name.
    if (stat.nlink > 1) {
      await o.handle.close();
      throw conflict(
        `The file has ${stat.nlink} hard links; a hard-linked file is not served, since its other names may lie outside the volume. Copy it inside the box instead.`,
        'failed_precondition',
      );
    }
    return { handle: o.handle, stat };
  }

  /**
   * Opens the directory that will hold `segs`' last component, creating missing parents
   * when asked. Linear in depth: each step opens the next component through the previous
   * descriptor (`/proc/self/fd/N/name` resolves like openat: O(1), never the whole path
   * again) and checks where the new descriptor really is, so a symlinked parent is followed
   * inside the volume and refused outside. Stops as soon as `signal` fires (client gone).
   */
  async openParent(segs: string[], createParents: boolean, signal?: AbortSignal): Promise<Opened> {
    const root = await this.root();
    let dir = await this.openChecked(root, READ_FLAGS | C.O_DIRECTORY);
    try {
      for (const comp of segs.slice(0, -1)) {
        if (signal?.aborted) throw clientGone();
        const next = PROC_FD ? await this.openChild(dir, comp, createParents) : await this.openChildByPath(dir, comp, createParents);
        await dir.handle.close();
        dir = next;
      }
      if (signal?.aborted) throw clientGone();
      return dir;
    } catch (e) {
      await dir.handle.close().catch(() => {});
      throw e;
    }
  }

  /** One step down on Linux: open through the parent's descriptor (following a symlink), then check. */
  private async openChild(dir: Opened, comp: string, create: boolean): Promise<Opened> {
    const p = `${dir.at}/${comp}`;
    for (let attempt = 0; ; attempt++) {
      try {
        const handle = await fs.open(p, (READ_FLAGS & ~C.O_NOFOLLOW) | C.O_DIRECTORY);
        const at = `/proc/self/fd/${handle.fd}`;
        const now = await fs.readlink(at).catch(() => '');
        if (!this.inside(now, await this.root())) {
          await handle.close();
          throw missing();
        }
        return { handle, at };
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOTDIR') throw notADirectory();
        if (code === 'EACCES' || code === 'EPERM') throw new Unreadable();
        if (code !== 'ENOENT' || !create || attempt > 0) throw e instanceof DomainError ? e : missing('A parent directory of the path does not exist.');
        // mkdir never follows a final symlink: a dangling one gives EEXIST, then ENOENT above.
        await fs.mkdir(p, 0o755).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        });
      }
    }
  }

  /** One step down elsewhere (no /proc): through the real path, checked against the root. */
  private async openChildByPath(dir: Opened, comp: string, create: boolean): Promise<Opened> {
    const p = `${dir.at}/${comp}`;
    if (create) await fs.mkdir(p, 0o755).catch(() => {});
    const real = await fs.realpath(p).catch(() => {
      throw missing('A parent directory of the path does not exist.');
    });
    if (!this.inside(real, await this.root())) throw missing();
    return this.openChecked(real, READ_FLAGS | C.O_DIRECTORY);
  }
}

/** The client closed the connection: stop the work (nothing is answered). */
const clientGone = clientAborted;

function toEntry(name: string, st: Stats): VolumeEntry {
  const type = st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other';
  return { name, type, size: st.size, modified_time: st.mtimeMs / 1000, mode: st.mode & 0o7777 };
}
