import { createParser } from 'eventsource-parser';
import { Unavailable } from '../../../../kernel/domain-errors.js';
import { mapUpstreamError, target, upstreamMessage } from './http.js';
import { connectFailure } from './probe.js';

/** An upstream's error reported inside a stream (an `error` event or chunk). */
export const upstreamStreamError = (message: string) => new Unavailable(`The upstream engine failed mid-stream: ${message}`, { code: 'upstream_error' });

/**
 * One streamed call to an upstream (`stream: true`): server-sent events parsed with
 * eventsource-parser, each handed to `onEvent` as it arrives. An error answer (non-2xx)
 * maps like a JSON call's; the caller going away (`signal`) closes the connection, so the
 * upstream stops generating. `timeoutMs` bounds the silence between two reads.
 */
export function upstreamStream(
  engine: string,
  url: string,
  init: { headers: Record<string, string>; body: unknown; timeoutMs: number; signal?: AbortSignal; onEvent(event: string | undefined, data: string): void },
): Promise<void> {
  const payload = JSON.stringify(init.body);
  const headers = {
    accept: 'text/event-stream',
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(payload)),
    ...init.headers,
  };
  return new Promise<void>((resolve, reject) => {
    const t = target(url);
    let settled = false;
    const fail = (e: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(e);
    };
    // One timer for the whole call, re-armed per read (refresh: no new timer per chunk).
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      if (timer) timer.refresh();
      else timer = setTimeout(() => req.destroy(new Error(`no answer within ${init.timeoutMs} ms`)), init.timeoutMs);
    };
    const opts = { protocol: t.protocol, hostname: t.hostname, port: t.port, path: t.path, auth: t.auth, method: 'POST', headers, agent: t.agent };
    const req = t.mod.request(opts, (res) => {
      const status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      if (status < 200 || status >= 300) {
        let text = '';
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          const ra = res.headers['retry-after'];
          fail(mapUpstreamError(engine, status, upstreamMessage(body) ?? text.slice(0, 300), typeof ra === 'string' ? ra : null));
        });
        return;
      }
      const parser = createParser({
        onEvent: (ev) => {
          if (settled) return;
          try {
            init.onEvent(ev.event, ev.data);
          } catch (e) {
            fail(e);
          }
        },
      });
      res.on('data', (c: string) => {
        arm();
        parser.feed(c);
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve();
      });
      res.on('error', (e) => fail(upstreamStreamError(e.message)));
      res.on('aborted', () => fail(upstreamStreamError('the upstream closed the stream')));
    });
    arm();
    const onAbort = () => fail(new Unavailable('The client went away.', { code: 'client_gone' }));
    init.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('close', () => init.signal?.removeEventListener('abort', onAbort));
    if (init.signal?.aborted) onAbort();
    req.on('error', (e) => {
      const why = connectFailure(e as NodeJS.ErrnoException, new URL(url), init.timeoutMs).message;
      fail(new Unavailable(`Upstream engine "${engine}" is unreachable: ${why}`, { code: 'upstream_unavailable' }));
    });
    req.end(payload);
  });
}
