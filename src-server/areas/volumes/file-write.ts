import { randomUUID } from 'node:crypto';
import { constants as C } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { conflict, invalid, TooLarge } from '../../kernel/domain-errors.js';
import type { VolumeRoot } from './safe-fs.js';

interface WriteOptions {
  mode: number;
  createParents: boolean;
  maxBytes: number;
  /** Fires when the client goes away: parent creation stops. */
  signal?: AbortSignal;
}

/**
 * Streams `body` into the file `segs` of the volume: bytes go to a temp file in the
 * volume's temp dir (outside the data a box or a listing sees), which is fsynced and
 * renamed into the target's directory (opened through a checked descriptor), so readers
 * see the old file or the complete new one and a complete retry safely replaces it. A
 * symlink at the target is replaced, not followed.
 */
export async function writeVolumeFile(root: VolumeRoot, segs: string[], body: Readable, opts: WriteOptions): Promise<number> {
  if (segs.length === 0) throw invalid('Invalid path: it names the volume root, not a file.', 'path');
  const dir = await root.openParent(segs, opts.createParents, opts.signal);
  const target = `${dir.at}/${segs[segs.length - 1]}`;
  const temp = path.join(root.tempDir, `.box-upload-${randomUUID()}`);
  try {
    const existing = await fs.lstat(target).catch(() => undefined);
    if (existing?.isDirectory()) throw conflict('The path is a directory; a file cannot replace it.', 'failed_precondition');
    await fs.mkdir(root.tempDir, { recursive: true, mode: 0o700 });
    const fh = await fs.open(temp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600);
    let size = 0;
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > opts.maxBytes) throw fileTooLarge(opts.maxBytes);
        await fh.write(chunk);
      }
      await fh.chmod(opts.mode); // exact bits, regardless of the service's umask
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(temp, target).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'EISDIR' || e.code === 'ENOTEMPTY') throw conflict('The path is a directory; a file cannot replace it.', 'failed_precondition');
      throw e;
    });
    return size;
  } catch (e) {
    await fs.unlink(temp).catch(() => {});
    throw e;
  } finally {
    await dir.handle.close();
  }
}

/**
 * 413 for an upload cut off midway. The rest of the body is never read, so the
 * connection cannot carry another request (the HTTP layer answers `Connection: close`).
 */
export const fileTooLarge = (max: number, declared?: number) =>
  new TooLarge(`The file${declared === undefined ? ' is larger than' : ` is ${declared} bytes; over`} the limit of ${max} bytes.`, { bodyUnread: true });
