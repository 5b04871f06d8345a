import type { FileHandle } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';

/**
 * Streams an open file as the body of an answer whose Content-Length is `size` (its size when
 * it was opened), then closes it. Exactly the bytes announced: a file growing meanwhile must
 * not overrun Content-Length; a client gone midway ends the answer.
 */
export async function sendOpenFile(res: ServerResponse, handle: FileHandle, size: number): Promise<undefined> {
  if (size === 0) {
    await handle.close();
    res.end();
    return undefined;
  }
  await pipeline(handle.createReadStream({ start: 0, end: size - 1 }), res).catch(() => res.destroy());
  return undefined;
}
