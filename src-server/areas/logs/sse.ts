import type { Response } from 'express';

/** Bytes queued for a slow reader before the stream is cut (the client reconnects). */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

/**
 * Opens a server-sent event stream on `res`: `send(event, data)` writes one event (JSON
 * data), a comment every 15 s keeps idle connections open, and `onClose` runs once when
 * the client goes away (or a too-slow reader is cut off).
 */
export function openEventStream(res: Response, onClose: () => void) {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  res.flushHeaders();
  const ping = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  res.on('close', () => {
    clearInterval(ping);
    onClose();
  });
  return {
    send(event: string, data: unknown, id?: number) {
      if (res.writableLength > MAX_QUEUED_BYTES) return void res.destroy();
      res.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
  };
}
