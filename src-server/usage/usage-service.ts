import type { AppBase } from '../app-context.js';
import type { OrganizationService } from '../core/organization-service.js';
import type { BoxRecord } from '../boxes/ports.js';
import type { Rates, SpendQuery, SpendResponse, TokensQuery, TokensResponse } from '../contract/usage.js';
import { invalid } from '../core/domain-errors.js';
import { boxCost, ratesFrom, tokenCost } from './rates.js';
import { HOUR_MS, UsageRepo } from './usage-repo.js';

const DEFAULT_WINDOW_MS = 30 * 86400_000;

interface TokenUse {
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** The box the request came from (through its egress proxy), if any. */
  boxId?: string | null;
}

/**
 * Records usage (box time, inference tokens), draws it from the organization's credits,
 * and answers the spend and token reports. What is recorded is exactly what is charged.
 */
const TOKEN_FLUSH_MS = 1000;

export class UsageService {
  private pendingTokens = new Map<
    string,
    { orgId: string; boxId: string | null; day: string; model: string; requests: number; input: number; output: number; nanos: number }
  >();
  /** Tokens used per box since it was created (loaded on first ask, then kept current): budgets read it per request. */
  private boxUsed = new Map<string, number>();
  private flushTimer?: NodeJS.Timeout;
  readonly repo: UsageRepo;
  readonly rates: Rates;

  constructor(
    private app: AppBase,
    /** Credits are the core area's: usage draws them down through its service. */
    private orgs: Pick<OrganizationService, 'charge'>,
  ) {
    this.repo = new UsageRepo(app.db);
    this.rates = ratesFrom(app.config.tuning.usageRates);
  }

  /** Bills a box for running over [from, to) at its size, split by UTC hour; returns the nanos charged. */
  async recordBoxTime(box: Pick<BoxRecord, 'box_id' | 'org_id' | 'app_id' | 'vcpu_count' | 'memory_mib'>, from: number, to: number): Promise<number> {
    let charged = 0;
    // Each hour's share is the rounded running total minus what is already charged, so the
    // shares add up to the whole span's cost rounded once (rounding each share alone
    // over-charged a nano whenever two partial hours both ended on a half).
    let exact = 0;
    await this.app.db.transaction(async () => {
      for (let a = from; a < to;) {
        const hour = Math.floor(a / HOUR_MS) * HOUR_MS;
        const b = Math.min(to, hour + HOUR_MS);
        const seconds = (b - a) / 1000;
        const c = boxCost(this.rates, seconds, box.vcpu_count, box.memory_mib);
        exact += c.nanos;
        const nanos = Math.round(exact) - charged;
        await this.repo.addBoxUse({
          boxId: box.box_id,
          orgId: box.org_id,
          appId: box.app_id,
          hour,
          seconds,
          vcpuSeconds: c.vcpuSeconds,
          memoryGibSeconds: c.memoryGibSeconds,
          nanos,
        });
        charged += nanos;
        a = b;
      }
      await this.orgs.charge(box.org_id, charged);
    });
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
    const boxId = use.boxId ?? null;
    const key = `${orgId}\0${boxId ?? ''}\0${dayOf(at)}\0${use.model}`;
    const p = this.pendingTokens.get(key) ?? { orgId, boxId, day: dayOf(at), model: use.model, requests: 0, input: 0, output: 0, nanos: 0 };
    if (boxId && this.boxUsed.has(boxId)) this.boxUsed.set(boxId, this.boxUsed.get(boxId)! + input + output);
    p.requests += 1;
    p.input += input;
    p.output += output;
    p.nanos += nanos;
    this.pendingTokens.set(key, p);
    this.flushTimer ??= setTimeout(
      () => void this.flushTokens().catch((e: unknown) => this.app.log.error('usage: writing token use failed', e)),
      TOKEN_FLUSH_MS,
    ).unref();
    return nanos;
  }

  /**
   * Token use is summed in memory and written once a second in one synced transaction
   * (a per-request fsync would dominate the gateway's latency). Reads flush first; a
   * crash can lose at most the last second of token accounting, never a user's data.
   */
  async flushTokens(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (!this.pendingTokens.size) return;
    const batch = [...this.pendingTokens.values()];
    this.pendingTokens.clear();
    await this.app.db.transaction(async () => {
      for (const p of batch) {
        await this.repo.addTokens(p.orgId, p.day, p.model, p.input, p.output, p.nanos, p.requests);
        if (p.boxId) await this.repo.addBoxTokens(p.boxId, p.orgId, p.day, p.model, p.input, p.output, p.nanos, p.requests);
        await this.orgs.charge(p.orgId, p.nanos);
      }
    });
  }

  /** Input + output tokens the box has used through the gateway, including the unflushed second. */
  async boxTokensUsed(boxId: string): Promise<number> {
    let n = this.boxUsed.get(boxId);
    if (n === undefined) {
      await this.flushTokens();
      n = await this.repo.boxTokensTotal(boxId);
      this.boxUsed.set(boxId, n);
    }
    return n;
  }

  async spend(orgId: string, q: SpendQuery, now = Date.now()): Promise<SpendResponse> {
    const { from, to } = windowOf(q, now);
    const filter = { box_id: q.box_id, app_id: q.app_id };
    const boxes = await this.repo.boxTotals(orgId, from, to, filter);
    const sum = (k: 'box_seconds' | 'vcpu_seconds' | 'memory_gib_seconds' | 'usd_nanos') => boxes.reduce((n, b) => n + b[k], 0);
    return {
      start_at: new Date(from).toISOString(),
      end_at: new Date(to).toISOString(),
      rates: this.rates,
      totals: {
        box_seconds: sum('box_seconds'),
        vcpu_seconds: sum('vcpu_seconds'),
        memory_gib_seconds: sum('memory_gib_seconds'),
        usd_nanos: sum('usd_nanos'),
      },
      boxes,
      series: await this.repo.boxDaily(orgId, from, to, filter),
    };
  }

  async tokens(orgId: string, q: TokensQuery, now = Date.now()): Promise<TokensResponse> {
    await this.flushTokens();
    const { from, to } = windowOf(q, now);
    const data = await this.repo.tokens(orgId, dayOf(from), dayOf(to - 1));
    const sum = (k: 'requests' | 'input_tokens' | 'output_tokens' | 'usd_nanos') => data.reduce((n, r) => n + r[k], 0);
    return {
      start_at: new Date(from).toISOString(),
      end_at: new Date(to).toISOString(),
      rates: this.rates,
      totals: { requests: sum('requests'), input_tokens: sum('input_tokens'), output_tokens: sum('output_tokens'), usd_nanos: sum('usd_nanos') },
      data,
      boxes: await this.repo.boxTokens(orgId, dayOf(from), dayOf(to - 1)),
    };
  }
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `to` defaults to now and `from` to 30 days before it; `from` must come before `to`. */
function windowOf(q: { from?: string; to?: string }, now: number) {
  const to = q.to ? Date.parse(q.to) : now;
  const from = q.from ? Date.parse(q.from) : to - DEFAULT_WINDOW_MS;
  if (from >= to) throw invalid('from must be before to.', 'from');
  return { from, to };
}
