import { call } from './api-call.js';
import type { ToolLog } from './logging.js';
import type { BoxApi } from './ports.js';
import type { ToolExtra } from './streams.js';

const TICK_MS = 1000;

/**
 * While a tool waits on something slow (box_create: a box that boots, and on a fresh install
 * the image and template builds it needs): `notifications/progress` each second when the call
 * has a progress token, and a log message (info) each time a template build moves on (phase,
 * or 10 more percent). Answers the function that stops it.
 */
export function whileWaiting(api: BoxApi, extra: ToolExtra, log: ToolLog, what: string): () => void {
  const token = extra._meta?.progressToken;
  const started = Date.now();
  const seen = new Map<string, string>();
  let ticks = 0;
  let busy = false;
  const tick = async () => {
    ticks++;
    const seconds = Math.round((Date.now() - started) / 1000);
    if (token !== undefined) {
      const params = { progressToken: token, progress: ticks, message: `${what} (${seconds} s)` };
      void extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {});
    }
    if (busy) return;
    busy = true;
    try {
      for (const t of (await call(api, 'GET /v1/templates', { signal: extra.signal })).data) {
        if (t.state !== 'building' && !seen.has(t.template_id)) continue;
        const step = t.state === 'building' ? `${t.progress?.phase ?? 'building'} ${Math.floor((t.progress?.percent ?? 0) / 10) * 10}%` : t.state;
        if (seen.get(t.template_id) === step) continue;
        seen.set(t.template_id, step);
        log(t.state === 'failed' ? 'error' : 'info', {
          template_id: t.template_id,
          image: t.image,
          state: t.state,
          ...t.progress,
          ...(t.error ? { error: t.error } : {}),
        });
      }
    } catch {
      // the wait goes on; only its commentary is missing
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), TICK_MS);
  if (token !== undefined) {
    const params = { progressToken: token, progress: 0, message: `${what}…` };
    void extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {});
  }
  return () => clearInterval(timer);
}
