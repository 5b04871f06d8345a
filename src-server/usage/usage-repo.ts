import type { BoxTokenUsage, TokenUsageRow } from '../contract/usage.js';
import type { Db } from '../db/connection.js';

export const HOUR_MS = 3600_000;

interface BoxUse {
  boxId: string;
  orgId: string;
  appId: string;
  /** Start of the UTC hour the use falls in. */
  hour: number;
  seconds: number;
  vcpuSeconds: number;
  memoryGibSeconds: number;
  nanos: number;
}

interface BoxUseTotal {
  box_id: string;
  name: string | null;
  app_id: string | null;
  box_seconds: number;
  vcpu_seconds: number;
  memory_gib_seconds: number;
  usd_nanos: number;
}

/** Usage records: box time per box per UTC hour, tokens per org, model and UTC day. */
export class UsageRepo {
  constructor(private db: Db) {}

  addBoxUse(u: BoxUse): void {
    this.db
      .prepare(
        `INSERT INTO box_usage_hourly (box_id, hour, org_id, app_id, box_seconds, vcpu_seconds, memory_gib_seconds, usd_nanos)
         VALUES (@boxId, @hour, @orgId, @appId, @seconds, @vcpuSeconds, @memoryGibSeconds, @nanos)
         ON CONFLICT (box_id, hour) DO UPDATE SET box_seconds = box_seconds + @seconds, vcpu_seconds = vcpu_seconds + @vcpuSeconds,
           memory_gib_seconds = memory_gib_seconds + @memoryGibSeconds, usd_nanos = usd_nanos + @nanos`,
      )
      .run(u);
  }

  /** Per-box totals of the hours that overlap [from, to), optionally for one box or app. */
  boxTotals(orgId: string, from: number, to: number, f: { box_id?: string; app_id?: string }): BoxUseTotal[] {
    return this.db
      .prepare(
        `SELECT u.box_id, b.name, u.app_id, SUM(u.box_seconds) AS box_seconds, SUM(u.vcpu_seconds) AS vcpu_seconds,
                SUM(u.memory_gib_seconds) AS memory_gib_seconds, SUM(u.usd_nanos) AS usd_nanos
           FROM box_usage_hourly u LEFT JOIN boxes b ON b.id = u.box_id
          WHERE ${this.where(f)}
          GROUP BY u.box_id ORDER BY usd_nanos DESC, u.box_id`,
      )
      .all(this.args(orgId, from, to, f)) as BoxUseTotal[];
  }

  /** Spend per UTC day over the same hours as boxTotals. */
  boxDaily(orgId: string, from: number, to: number, f: { box_id?: string; app_id?: string }): { day: string; usd_nanos: number }[] {
    return this.db
      .prepare(
        `SELECT strftime('%Y-%m-%d', u.hour / 1000, 'unixepoch') AS day, SUM(u.usd_nanos) AS usd_nanos
           FROM box_usage_hourly u WHERE ${this.where(f)} GROUP BY day ORDER BY day`,
      )
      .all(this.args(orgId, from, to, f)) as { day: string; usd_nanos: number }[];
  }

  /** An hour counts when it overlaps the window: it starts before `to` and ends after `from`. */
  private args(orgId: string, from: number, to: number, f: { box_id?: string; app_id?: string }) {
    return { orgId, from: from - HOUR_MS, to, ...(f.box_id ? { box_id: f.box_id } : {}), ...(f.app_id ? { app_id: f.app_id } : {}) };
  }

  private where(f: { box_id?: string; app_id?: string }) {
    const w = ['u.org_id = @orgId', 'u.hour > @from', 'u.hour < @to'];
    if (f.box_id) w.push('u.box_id = @box_id');
    if (f.app_id) w.push('u.app_id = @app_id');
    return w.join(' AND ');
  }

  addTokens(orgId: string, day: string, model: string, input: number, output: number, nanos: number, requests = 1): void {
    this.db
      .prepare(
        `INSERT INTO token_usage_daily (org_id, day, model, requests, input_tokens, output_tokens, usd_nanos) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (org_id, day, model) DO UPDATE SET requests = requests + excluded.requests, input_tokens = input_tokens + excluded.input_tokens,
           output_tokens = output_tokens + excluded.output_tokens, usd_nanos = usd_nanos + excluded.usd_nanos`,
      )
      .run(orgId, day, model, requests, input, output, nanos);
  }

  /** Token use per day and model for the UTC days [fromDay, toDay], oldest first. */
  tokens(orgId: string, fromDay: string, toDay: string): TokenUsageRow[] {
    return this.db
      .prepare(
        `SELECT day, model, requests, input_tokens, output_tokens, usd_nanos FROM token_usage_daily
          WHERE org_id = ? AND day >= ? AND day <= ? ORDER BY day, model`,
      )
      .all(orgId, fromDay, toDay) as TokenUsageRow[];
  }

  addBoxTokens(boxId: string, orgId: string, day: string, model: string, input: number, output: number, nanos: number, requests: number): void {
    this.db
      .prepare(
        `INSERT INTO box_token_usage (box_id, day, model, org_id, requests, input_tokens, output_tokens, usd_nanos) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (box_id, day, model) DO UPDATE SET requests = requests + excluded.requests, input_tokens = input_tokens + excluded.input_tokens,
           output_tokens = output_tokens + excluded.output_tokens, usd_nanos = usd_nanos + excluded.usd_nanos`,
      )
      .run(boxId, day, model, orgId, requests, input, output, nanos);
  }

  boxTokensTotal(boxId: string): number {
    const r = this.db.prepare('SELECT COALESCE(SUM(input_tokens + output_tokens), 0) AS n FROM box_token_usage WHERE box_id = ?').get(boxId) as { n: number };
    return r.n;
  }

  /** Token use per box over the UTC days [fromDay, toDay], biggest spender first. */
  boxTokens(orgId: string, fromDay: string, toDay: string): BoxTokenUsage[] {
    return this.db
      .prepare(
        `SELECT u.box_id, b.name, b.inference_budget_tokens, SUM(u.requests) AS requests, SUM(u.input_tokens) AS input_tokens,
                SUM(u.output_tokens) AS output_tokens, SUM(u.usd_nanos) AS usd_nanos
           FROM box_token_usage u LEFT JOIN boxes b ON b.id = u.box_id
          WHERE u.org_id = ? AND u.day >= ? AND u.day <= ? GROUP BY u.box_id ORDER BY usd_nanos DESC, u.box_id`,
      )
      .all(orgId, fromDay, toDay) as BoxTokenUsage[];
  }
}
