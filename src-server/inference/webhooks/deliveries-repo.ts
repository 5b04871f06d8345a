import type { Statement } from 'better-sqlite3';
import type { Db } from '../../db/connection.js';
import type { CryptoBox } from '../../util/crypto-box.js';

type DeliveryState = 'waiting' | 'pending' | 'delivered' | 'failed' | 'skipped';

export interface Delivery {
  responseId: string;
  orgId: string;
  url: string;
  token: string | null;
  state: DeliveryState;
  roundsDone: number;
  roundLimit: number;
  nextAt: number;
}

interface AttemptRow {
  round: number;
  attempt: number;
  at: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

interface Row {
  response_id: string;
  org_id: string;
  url: string;
  token_sealed: Buffer | null;
  state: DeliveryState;
  rounds_done: number;
  round_limit: number;
  next_at: number;
}

/** The only SQL on webhook_deliveries and webhook_attempts; tokens are sealed at rest. */
export class DeliveriesRepo {
  private stmts = new Map<string, Statement>();
  constructor(
    private db: Db,
    private box: CryptoBox,
  ) {}

  /** Statements are prepared once per connection (preparing costs more than running). */
  private stmt(sql: string): Statement {
    let st = this.stmts.get(sql);
    if (!st) this.stmts.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  private from(r: Row): Delivery {
    return {
      responseId: r.response_id,
      orgId: r.org_id,
      url: r.url,
      token: r.token_sealed ? this.box.openString(r.token_sealed) : null,
      state: r.state,
      roundsDone: r.rounds_done,
      roundLimit: r.round_limit,
      nextAt: r.next_at,
    };
  }

  /** `waiting` until the response finishes, or `pending` (due at `at`) when it already has. */
  create(d: { responseId: string; orgId: string; url: string; token: string | null; state: 'waiting' | 'pending'; roundLimit: number }, at: number) {
    this.stmt(
      `INSERT INTO webhook_deliveries (response_id, org_id, url, token_sealed, state, rounds_done, round_limit, next_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`,
    ).run(d.responseId, d.orgId, d.url, d.token === null ? null : this.box.seal(d.token), d.state, d.roundLimit, at, at, at);
  }

  get(responseId: string): Delivery | undefined {
    const r = this.stmt('SELECT * FROM webhook_deliveries WHERE response_id = ?').get(responseId) as Row | undefined;
    return r && this.from(r);
  }

  /** waiting → pending (finished with a webhook-worthy status) or skipped. */
  activate(responseId: string, send: boolean, at: number): boolean {
    return (
      this.stmt(`UPDATE webhook_deliveries SET state = ?, next_at = ?, updated_at = ? WHERE response_id = ? AND state = 'waiting'`).run(
        send ? 'pending' : 'skipped',
        at,
        at,
        responseId,
      ).changes === 1
    );
  }

  due(now: number, limit = 100): Delivery[] {
    const rows = this.stmt(`SELECT * FROM webhook_deliveries WHERE state = 'pending' AND next_at <= ? ORDER BY next_at LIMIT ?`).all(now, limit) as Row[];
    return rows.map((r) => this.from(r));
  }

  nextDueAt(): number | null {
    const r = this.stmt(`SELECT MIN(next_at) AS at FROM webhook_deliveries WHERE state = 'pending'`).get() as { at: number | null };
    return r.at;
  }

  recordAttempt(responseId: string, a: AttemptRow): void {
    this.stmt('INSERT INTO webhook_attempts (response_id, round, attempt, at, status_code, latency_ms, error) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      responseId,
      a.round,
      a.attempt,
      a.at,
      a.status_code,
      a.latency_ms,
      a.error,
    );
  }

  /** Closes a round: delivered, failed for good, or pending again at `nextAt`. */
  finishRound(responseId: string, state: 'delivered' | 'failed' | 'pending', nextAt: number, at: number): void {
    this.stmt('UPDATE webhook_deliveries SET state = ?, rounds_done = rounds_done + 1, next_at = ?, updated_at = ? WHERE response_id = ?').run(
      state,
      nextAt,
      at,
      responseId,
    );
  }

  /** Starts a fresh series of up to `rounds` rounds now. */
  redeliver(responseId: string, rounds: number, at: number): void {
    this.stmt(`UPDATE webhook_deliveries SET state = 'pending', round_limit = rounds_done + ?, next_at = ?, updated_at = ? WHERE response_id = ?`).run(
      rounds,
      at,
      at,
      responseId,
    );
  }

  attempts(responseId: string): AttemptRow[] {
    return this.stmt('SELECT round, attempt, at, status_code, latency_ms, error FROM webhook_attempts WHERE response_id = ? ORDER BY id').all(
      responseId,
    ) as AttemptRow[];
  }
}
