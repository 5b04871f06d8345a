import type { AppContext } from '../app-context.js';
import type { BoxRecord } from '../boxes/boxes-repo.js';
import type { Rates, SpendQuery, SpendResponse, TokensQuery, TokensResponse } from '../contract/usage.js';
import { badRequest } from '../http/errors.js';
import { boxCost, ratesFrom, tokenCost } from './rates.js';
import { HOUR_MS, UsageRepo } from './usage-repo.js';

const DEFAULT_WINDOW_MS = 30 * 86400_000;

export interface TokenUse {
  model: string;
  inputTokens: number;
  outputTokens: number;
}

/**
 * Records usage (box time, inference tokens), draws it from the organization's credits,
 * and answers the spend and token reports. What is recorded is exactly what is charged.
 */
export class UsageService {
  readonly repo: UsageRepo;
  readonly rates: Rates;

  constructor(private app: AppContext) {
    this.repo = new UsageRepo(app.db);
    this.rates = ratesFrom(app.config.tuning);
  }

  /** Bills a box for running over [from, to) at its size, split by UTC hour; returns the nanos charged. */
  recordBoxTime(box: Pick<BoxRecord, 'box_id' | 'org_id' | 'app_id' | 'vcpu_count' | 'memory_mib'>, from: number, to: number): number {
    let charged = 0;
    this.app.db.transaction(() => {
      for (let a = from; a < to; ) {
        const hour = Math.floor(a / HOUR_MS) * HOUR_MS;
        const b = Math.min(to, hour + HOUR_MS);
        const seconds = (b - a) / 1000;
        const c = boxCost(this.rates, seconds, box.vcpu_count, box.memory_mib);
        const nanos = Math.round(c.nanos);
        this.repo.addBoxUse({ boxId: box.box_id, orgId: box.org_id, appId: box.app_id, hour, seconds, vcpuSeconds: c.vcpuSeconds, memoryGibSeconds: c.memoryGibSeconds, nanos });
        charged += nanos;
        a = b;
      }
      this.app.repos.orgs.charge(box.org_id, charged);
    })();
    return charged;
  }

  /**
   * Records one finished inference request's tokens for the organization and charges them.
   * Called by the inference area when a response is stored; returns the nanos charged.
   */
  recordTokens(orgId: string, use: TokenUse, at = Date.now()): number {
    const input = Math.max(0, Math.round(use.inputTokens));
    const output = Math.max(0, Math.round(use.outputTokens));
    const nanos = tokenCost(this.rates, input, output);
    this.app.db.transaction(() => {
      this.repo.addTokens(orgId, dayOf(at), use.model, input, output, nanos);
      this.app.repos.orgs.charge(orgId, nanos);
    })();
    return nanos;
  }

  spend(orgId: string, q: SpendQuery, now = Date.now()): SpendResponse {
    const { from, to } = windowOf(q, now);
    const filter = { box_id: q.box_id, app_id: q.app_id };
    const boxes = this.repo.boxTotals(orgId, from, to, filter);
    const sum = (k: 'box_seconds' | 'vcpu_seconds' | 'memory_gib_seconds' | 'usd_nanos') => boxes.reduce((n, b) => n + b[k], 0);
    return {
      start_at: new Date(from).toISOString(),
      end_at: new Date(to).toISOString(),
      rates: this.rates,
      totals: { box_seconds: sum('box_seconds'), vcpu_seconds: sum('vcpu_seconds'), memory_gib_seconds: sum('memory_gib_seconds'), usd_nanos: sum('usd_nanos') },
      boxes,
      series: this.repo.boxDaily(orgId, from, to, filter),
    };
  }

  tokens(orgId: string, q: TokensQuery, now = Date.now()): TokensResponse {
    const { from, to } = windowOf(q, now);
    const data = this.repo.tokens(orgId, dayOf(from), dayOf(to - 1));
    const sum = (k: 'requests' | 'input_tokens' | 'output_tokens' | 'usd_nanos') => data.reduce((n, r) => n + r[k], 0);
    return {
      start_at: new Date(from).toISOString(),
      end_at: new Date(to).toISOString(),
      rates: this.rates,
      totals: { requests: sum('requests'), input_tokens: sum('input_tokens'), output_tokens: sum('output_tokens'), usd_nanos: sum('usd_nanos') },
      data,
    };
  }
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `to` defaults to now and `from` to 30 days before it; `from` must come before `to`. */
function windowOf(q: { from?: string; to?: string }, now: number) {
  const to = q.to ? Date.parse(q.to) : now;
  const from = q.from ? Date.parse(q.from) : to - DEFAULT_WINDOW_MS;
  if (from >= to) throw badRequest('from must be before to.', 'from');
  return { from, to };
}
