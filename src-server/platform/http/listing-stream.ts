import { once } from 'node:events';
import type { Response } from 'express';

/**
 * Writes `{"entries":[...]}` batch by batch (chunked), waiting for the socket to drain, so
 * a listing of any size keeps the service's memory flat; the shape is the spec's, unpaged.
 * A client that leaves stops the walk. Volume and box directory listings both use it. Errors after the first byte can only cut the body.
 */
export async function streamListing<T>(res: Response, batches: AsyncGenerator<T[]>): Promise<void> {
  res.status(200).type('application/json');
  let first = true;
  let gone = false;
  res.on('close', () => (gone = true));
  try {
    res.write('{"entries":[');
    for await (const batch of batches) {
      if (gone) break;
      if (!batch.length) continue;
      const text = batch.map((e) => JSON.stringify(e)).join(',');
      const ok = res.write(first ? text : `,${text}`);
      first = false;
      if (!ok && !gone) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    }
    if (!gone) res.end(']}');
  } catch {
    res.destroy(); // headers are out: a cut body tells the client something went wrong
  } finally {
    await batches.return(undefined);
  }
}
