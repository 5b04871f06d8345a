import type { OrgsRepo } from '../db/orgs-repo.js';
import { ApiError } from './api-errors.js';

/** A short request, or a long-lived stream (exec, console, egress log, SSE): each has its own pool. */
type LimitPool = 'short' | 'stream';

/**
 * Concurrency limits per organization: a request over them never starts (429 + Retry-After).
 * Long-lived streams (an exec running a server or a watcher, a console or log followed for
 * hours) have their own bounded pool, so 64 of them do not starve short requests such as
 * the UI's reads (issue 28).
 */
export class ConcurrencyLimiter {
  private inFlight = { short: new Map<string, number>(), stream: new Map<string, number>() };
  constructor(
    private max: number,
    private maxStreams = 256,
  ) {}

  acquire(orgId: string, pool: LimitPool = 'short'): () => void {
    const counts = this.inFlight[pool];
    const max = pool === 'short' ? this.max : this.maxStreams;
    const n = counts.get(orgId) ?? 0;
    if (n >= max) {
      const what = pool === 'short' ? 'requests' : 'long-lived streams (exec, console, logs)';
      throw new ApiError(429, 'rate_limit_error', `Too many ${what} in flight for this organization (limit ${max}); retry after the delay.`, {
        code: 'rate_limited',
        headers: { 'Retry-After': '1' },
      });
    }
    counts.set(orgId, n + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (counts.get(orgId) ?? 1) - 1;
      if (left <= 0) counts.delete(orgId);
      else counts.set(orgId, left);
    };
  }

  current(orgId: string, pool: LimitPool = 'short'): number {
    return this.inFlight[pool].get(orgId) ?? 0;
  }
}

/** An organization with no credits has its keys disabled (spec, Authentication 4). */
export class Billing {
  constructor(
    private orgs: OrgsRepo,
    private billingUrl: () => string,
  ) {}

  async check(orgId: string): Promise<void> {
    if (await this.orgs.outOfCredits(orgId)) {
      throw new ApiError(402, 'billing_error', 'Your organization has no credits left; add credits to continue.', {
        code: 'credits_exhausted',
        extra: { billing_url: this.billingUrl() },
      });
    }
  }
}
