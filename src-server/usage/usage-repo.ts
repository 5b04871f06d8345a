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

  async addBoxUse(u: BoxUse): Promise<void> {
    await this.db.run(
      `INSERT INTO box_usage_hourly (box_id, hour, org_id, app_id, box_seconds, vcpu_seconds, memory_gib_seconds, usd_nanos)
         VALUES (@boxId, @hour, @orgId, @appId, @seconds, @vcpuSeconds, @memoryGibSeconds, @nanos)
         ON CONFLICT (box_id, hour) DO UPDATE SET box_seconds = box_usage_hourly.box_seconds + @seconds, vcpu_seconds = box_usage_hourly.vcpu_seconds + @vcpuSeconds,
           memory_gib_seconds = box_usage_hourly.memory_gib_seconds + @memoryGibSeconds, usd_nanos = box_usage_hourly.usd_nanos + @nanos`,
      u,
    );
  }

  /** Per-box totals of the hours that overlap [from, to), optionally for one box or app. */
  async boxTotals(orgId: string, from: number, to: number, f: { box_id?: string; app_id?: string }): Promise<BoxUseTotal[]> {
    return (await this.db.all(
      `SELECT u.box_id, b.name, MAX(u.app_id) AS app_id, SUM(u.box_seconds) AS box_seconds, SUM(u.vcpu_seconds) AS vcpu_seconds,
                SUM(u.memory_gib_seconds) AS memory_gib_seconds, SUM(u.usd_nanos) AS usd_nanos
           FROM box_usage_hourly u LEFT JOIN boxes b ON b.id = u.box_id
          WHERE ${this.where(f)}
          GROUP BY u.box_id, b.name ORDER BY usd_nanos DESC, u.box_id`,
      this.args(orgId, from, to, f),
    )) as BoxUseTotal[];
  }

  /** Spend per UTC day over the same hours as boxTotals. */
  async boxDaily(orgId: string, from: number, to: number, f: { box_id?: string; app_id?: string }): Promise<{ day: string; usd_nanos: number }[]> {
    return (await this.db.all(
      `SELECT ${this.db.dialect === 'sqlite' ? "strftime('%Y-%m-%d', u.hour / 1000, 'unixepoch')" : "to_char(to_timestamp(u.hour / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD')"} AS day, SUM(u.usd_nanos) AS usd_nanos
           FROM box_usage_hourly u WHERE ${this.where(f)} GROUP BY day ORDER BY day`,
      this.args(orgId, from, to, f),
    )) as { day: string; usd_nanos: number }[];
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

  async addTokens(orgId: string, day: string, model: string, input: number, output: number, nanos: number, requests = 1): Promise<void> {
    await this.db.run(
      `INSERT INTO token_usage_daily (org_id, day, model, requests, input_tokens, output_tokens, usd_nanos) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (org_id, day, model) DO UPDATE SET requests = token_usage_daily.requests + excluded.requests, input_tokens = token_usage_daily.input_tokens + excluded.input_tokens,
           output_tokens = token_usage_daily.output_tokens + excluded.output_tokens, usd_nanos = token_usage_daily.usd_nanos + excluded.usd_nanos`,
      [orgId, day, model, requests, input, output, nanos],
    );
  }

  /** Token use per day and model for the UTC days [fromDay, toDay], oldest first. */
  async tokens(orgId: string, fromDay: string, toDay: string): Promise<TokenUsageRow[]> {
    return (await this.db.all(
      `SELECT day, model, requests, input_tokens, output_tokens, usd_nanos FROM token_usage_daily
          WHERE org_id = ? AND day >= ? AND day <= ? ORDER BY day, model`,
      [orgId, fromDay, toDay],
    )) as TokenUsageRow[];
  }

  async addBoxTokens(boxId: string, orgId: string, day: string, model: string, input: number, output: number, nanos: number, requests: number): Promise<void> {
    await this.db.run(
      `INSERT INTO box_token_usage (box_id, day, model, org_id, requests, input_tokens, output_tokens, usd_nanos) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (box_id, day, model) DO UPDATE SET requests = box_token_usage.requests + excluded.requests, input_tokens = box_token_usage.input_tokens + excluded.input_tokens,
           output_tokens = box_token_usage.output_tokens + excluded.output_tokens, usd_nanos = box_token_usage.usd_nanos + excluded.usd_nanos`,
      [boxId, day, model, orgId, requests, input, output, nanos],
    );
  }

  async boxTokensTotal(boxId: string): Promise<number> {
    const r = (await this.db.get('SELECT COALESCE(SUM(input_tokens + output_tokens), 0) AS n FROM box_token_usage WHERE box_id = ?', [boxId])) as { n: number };
    return r.n;
  }

  /** Token use per box over the UTC days [fromDay, toDay], biggest spender first. */
  async boxTokens(orgId: string, fromDay: string, toDay: string): Promise<BoxTokenUsage[]> {
    return (await this.db.all(
      `SELECT u.box_id, b.name, b.inference_budget_tokens, SUM(u.requests) AS requests, SUM(u.input_tokens) AS input_tokens,
                SUM(u.output_tokens) AS output_tokens, SUM(u.usd_nanos) AS usd_nanos
           FROM box_token_usage u LEFT JOIN boxes b ON b.id = u.box_id
          WHERE u.org_id = ? AND u.day >= ? AND u.day <= ? GROUP BY u.box_id, b.name, b.inference_budget_tokens ORDER BY usd_nanos DESC, u.box_id`,
      [orgId, fromDay, toDay],
    )) as BoxTokenUsage[];
  }
}
