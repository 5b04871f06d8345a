import type { Logger } from '../../app-context.js';
import type { Delivery, DeliveriesRepo } from './deliveries-repo.js';
import { delayAfterRound, type WebhookSchedule } from './schedule.js';
import { signatureHeaders, webhookMessageId } from './sign.js';

/** What to send for a response: its GET body and the org's signing secret. */
type PayloadSource = (responseId: string, orgId: string) => Promise<{ body: string; secret: string } | null>;

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Sends completion webhooks in rounds (spec, Events). The schedule lives in SQLite: a
 * round interrupted by a shutdown is not recorded and runs again after the next start,
 * so pending rounds resume on schedule. One timer points at the earliest due round.
 */
export class WebhookDispatcher {
  private timer?: NodeJS.Timeout;
  private running = new Map<string, Promise<void>>();
  private abort = new AbortController();
  private stopped = true;

  constructor(
    private repo: DeliveriesRepo,
    private schedule: WebhookSchedule,
    private payload: PayloadSource,
    private log: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.abort = new AbortController();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort();
    await Promise.allSettled(this.running.values());
  }

  /** Re-arms the timer for the earliest due round (call after any schedule change). */
  kick(): void {
    void this.arm().catch((e: unknown) => this.log.error('webhooks: scheduling failed', e));
  }

  private async arm(): Promise<void> {
    if (this.stopped) return;
    const next = await this.repo.nextDueAt();
    clearTimeout(this.timer);
    if (next === null || this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), Math.min(MAX_TIMER_MS, Math.max(0, next - Date.now())));
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    for (const d of await this.repo.due(Date.now())) {
      if (this.running.has(d.responseId)) continue;
      const p = this.runRound(d)
        .catch((e) => this.log.error('webhooks: round failed unexpectedly', e))
        .finally(() => {
          this.running.delete(d.responseId);
          this.kick();
        });
      this.running.set(d.responseId, p);
    }
    this.kick();
  }

  private async runRound(d: Delivery): Promise<void> {
    const round = d.roundsDone + 1;
    const payload = await this.payload(d.responseId, d.orgId);
    if (!payload) {
      await this.repo.finishRound(d.responseId, 'failed', Date.now(), Date.now());
      return;
    }
    const deadline = Date.now() + this.schedule.roundBudgetMs;
    let delivered = false;
    for (let attempt = 1; attempt <= this.schedule.attemptsPerRound && !delivered; attempt++) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      const at = Date.now();
      const r = await this.send(d, payload, Math.min(this.schedule.attemptTimeoutMs, left));
      if (this.stopped) return; // interrupted by shutdown: the round runs again after restart
      await this.repo.recordAttempt(d.responseId, { round, attempt, at, status_code: r.status, latency_ms: Date.now() - at, error: r.error });
      delivered = r.status !== null && r.status >= 200 && r.status < 300;
    }
    const now = Date.now();
    if (delivered) await this.repo.finishRound(d.responseId, 'delivered', now, now);
    else if (round >= d.roundLimit) await this.repo.finishRound(d.responseId, 'failed', now, now);
    else await this.repo.finishRound(d.responseId, 'pending', now + delayAfterRound(this.schedule, round), now);
  }

  private async send(d: Delivery, p: { body: string; secret: string }, timeoutMs: number): Promise<{ status: number | null; error: string | null }> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'box-webhooks/1',
      ...signatureHeaders(p.secret, webhookMessageId(d.responseId), p.body),
    };
    if (d.token) headers.authorization = `Bearer ${d.token}`;
    try {
      const res = await fetch(d.url, {
        method: 'POST',
        headers,
        body: p.body,
        redirect: 'manual',
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(timeoutMs)]),
      });
      await res.arrayBuffer().catch(() => undefined);
      return { status: res.status, error: res.ok ? null : `HTTP ${res.status}` };
    } catch (e) {
      const err = e as Error & { cause?: { code?: string; message?: string } };
      const why = err.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : (err.cause?.code ?? err.cause?.message ?? err.message);
      return { status: null, error: why };
    }
  }
}
