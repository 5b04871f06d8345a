import type { ServerResponse as Response } from 'node:http';

/** Aborts when the client disconnects before the answer was sent (engines cancel their upstream call). */
export function clientGone(res: Response): AbortSignal {
  const ctl = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) ctl.abort();
  });
  return ctl.signal;
}
