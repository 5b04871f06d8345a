import type { Response } from 'express';
import type { EgressLogEntry } from '../../contract/network.js';
import type { EgressRepo } from './egress-log-repo.js';

type Row = EgressLogEntry & { id: number };
/** Entries queued for a slow reader before the stream is cut (the client reconnects with a fresh backlog). */
const MAX_QUEUED = 1000;

/**
 * `GET /v1/boxes/{id}/egress-log?stream=1`: server-sent events. First the newest `limit`
 * entries (oldest first) as a backlog, then each entry as it is written; a tunnel's entry
 * comes again with its byte counts when it closes (same `id`: replace it). Filters apply to
 * both. A comment line every 15 s keeps idle connections open through intermediaries.
 */
export async function streamEgressLog(res: Response, repo: EgressRepo, boxId: string, limit: number, f: { verdict?: string; host?: string }) {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  res.flushHeaders();
  const wanted = (e: Row) => (!f.verdict || e.verdict === f.verdict) && (!f.host || e.host === f.host.toLowerCase());
  const send = (e: Row) => {
    if (!wanted(e)) return;
    if (res.writableLength > MAX_QUEUED * 512) return void res.destroy();
    res.write(`id: ${e.id}\nevent: entry\ndata: ${JSON.stringify(e)}\n\n`);
  };
  for (const e of (await repo.page(boxId, limit, 0, f)).rows.reverse()) send(e);
  const topic = `entry:${boxId}`;
  repo.events.on(topic, send);
  const ping = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  res.on('close', () => {
    clearInterval(ping);
    repo.events.off(topic, send);
  });
}
