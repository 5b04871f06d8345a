import { createHash } from 'node:crypto';
import type { IncomingMessage as Request } from 'node:http';

interface StreamHash {
  /** True once the whole body went through the hash (the request ended). */
  complete(): boolean;
  digest(): string;
}

/**
 * Hashes a raw request body as the handler streams it, without buffering or changing how
 * it is read: every chunk a Readable hands out, by `read()` (async iteration, pipe) or by
 * the flowing fast path, is emitted as 'data', so observing 'data' emits sees each byte
 * once, in order, and never switches the stream into flowing mode itself.
 */
export function hashWhileStreaming(req: Request, prefix: string): StreamHash {
  const h = createHash('sha256').update(prefix);
  let ended = req.readableEnded;
  const emit = req.emit;
  req.emit = function (this: Request, event: string | symbol, ...args: unknown[]) {
    if (event === 'data') h.update(args[0] as Buffer);
    else if (event === 'end') ended = true;
    return emit.call(this, event, ...args);
  } as typeof req.emit;
  return { complete: () => ended, digest: () => h.digest('hex') };
}

/** Reads and hashes what is left of a body (a replay must still compare the bytes sent). */
export async function drainHash(req: Request, prefix: string): Promise<string> {
  const h = createHash('sha256').update(prefix);
  for await (const chunk of req as AsyncIterable<Buffer>) h.update(chunk);
  return h.digest('hex');
}
