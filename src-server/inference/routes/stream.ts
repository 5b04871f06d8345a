import type { ServerResponse } from 'node:http';
import type { RouteApp } from '../../app-context.js';
import type { Principal } from '../../core/principal.js';
import { errorBody } from '../../http/error-handler.js';
import type { Prepared } from '../adapters/common.js';
import type { StreamError, StreamWriter } from '../adapters/stream-frames.js';
import type { WireStyle } from '../native.js';
import type { InferenceService } from '../inference-service.js';
import { clientGone } from './client-gone.js';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * Answers a `stream: true` request as server-sent events in its style (`writer`). Refusals
 * found before the stream starts (model, schema, budget) are ordinary JSON errors; once
 * it has started, an error ends it with the style's error event. The request is stored,
 * charged and its webhook sent exactly as a non-streamed one (InferenceService.runSync).
 * A client that disconnects aborts the engine's work.
 */
export async function streamAnswer(
  res: ServerResponse,
  app: Pick<RouteApp, 'log'>,
  svc: InferenceService,
  style: WireStyle,
  p: Prepared,
  auth: Principal,
  writer: StreamWriter,
): Promise<undefined> {
  await svc.check(style, p, auth);
  const signal = clientGone(res);
  // The frames of one turn of the event loop (one upstream read carries many events)
  // leave in one write, once the turn's work is done: one chunk, one syscall.
  let pending = '';
  const flush = () => {
    const out = pending;
    pending = '';
    if (out && !res.writableEnded && !res.destroyed) res.write(out);
  };
  const write = (s: string) => {
    if (!s) return;
    if (!pending) process.nextTick(flush);
    pending += s;
  };
  try {
    const stored = await svc.runSync(style, p, auth, signal, {
      started: (r) => {
        res.writeHead(200, SSE_HEADERS);
        write(writer.start(r));
      },
      onDelta: (d) => write(writer.delta(d)),
      onHosted: (e) => write(writer.hosted?.(e) ?? ''),
    });
    write(writer.finish(stored));
  } catch (e) {
    if (!res.headersSent) throw e;
    if (!signal.aborted) write(writer.error(streamError(e, app)));
  }
  flush();
  res.end();
  return undefined;
}

function streamError(e: unknown, app: Pick<RouteApp, 'log'>): StreamError {
  const r = errorBody(e, app);
  const err = (r.body as { error?: { type?: string; code?: string | null; message?: string; param?: string | null } }).error ?? {};
  return {
    status: r.status,
    type: err.type ?? 'server_error',
    code: err.code ?? null,
    message: err.message ?? 'The request failed.',
    param: err.param ?? null,
  };
}
