import type { OrgsRepo } from '../db/orgs-repo.js';
import { ApiError } from './errors.js';

/** Concurrency limit per organization: a request over it never starts (429 + Retry-After). */
export class ConcurrencyLimiter {
  private inFlight = new Map<string, number>();
  constructor(private max: number) {}

  acquire(orgId: string): () => void {
    const n = this.inFlight.get(orgId) ?? 0;
    if (n >= this.max) {
      throw new ApiError(429, 'rate_limit_error', `Too many requests in flight for this organization (limit ${this.max}); retry after the delay.`, {
        code: 'rate_limited',
        headers: { 'Retry-After': '1' },
      });
    }
    this.inFlight.set(orgId, n + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.inFlight.get(orgId) ?? 1) - 1;
      if (left <= 0) this.inFlight.delete(orgId);
      else this.inFlight.set(orgId, left);
    };
  }

  current(orgId: string): number {
    return this.inFlight.get(orgId) ?? 0;
  }
}

/** An organization with no credits has its keys disabled (spec, Authentication 4). */
export class Billing {
  constructor(
    private orgs: OrgsRepo,
    private billingUrl: () => string,
  ) {}

  check(orgId: string): void {
    if (this.orgs.outOfCredits(orgId)) {
      throw new ApiError(402, 'billing_error', 'Your organization has no credits left; add credits to continue.', {
        code: 'credits_exhausted',
        extra: { billing_url: this.billingUrl() },
      });
    }
  }
}
