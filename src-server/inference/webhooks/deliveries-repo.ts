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
  constructor(
    private db: Db,
    private box: CryptoBox,
  ) {}

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
  async create(d: { responseId: string; orgId: string; url: string; token: string | null; state: 'waiting' | 'pending'; roundLimit: number }, at: number) {
    await this.db.run(
      `INSERT INTO webhook_deliveries (response_id, org_id, url, token_sealed, state, rounds_done, round_limit, next_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`,
      [d.responseId, d.orgId, d.url, d.token === null ? null : this.box.seal(d.token), d.state, d.roundLimit, at, at, at],
    );
  }

  async get(responseId: string): Promise<Delivery | undefined> {
    const r = (await this.db.get('SELECT * FROM webhook_deliveries WHERE response_id = ?', [responseId])) as Row | undefined;
    return r && this.from(r);
  }

  /** waiting → pending (finished with a webhook-worthy status) or skipped. */
  async activate(responseId: string, send: boolean, at: number): Promise<boolean> {
    return (
      (
        await this.db.run(`UPDATE webhook_deliveries SET state = ?, next_at = ?, updated_at = ? WHERE response_id = ? AND state = 'waiting'`, [
          send ? 'pending' : 'skipped',
          at,
          at,
          responseId,
        ])
      ).changes === 1
    );
  }

  async due(now: number, limit = 100): Promise<Delivery[]> {
    const rows = (await this.db.all(`SELECT * FROM webhook_deliveries WHERE state = 'pending' AND next_at <= ? ORDER BY next_at LIMIT ?`, [
      now,
      limit,
    ])) as Row[];
    return rows.map((r) => this.from(r));
  }

  async nextDueAt(): Promise<number | null> {
    const r = (await this.db.get(`SELECT MIN(next_at) AS at FROM webhook_deliveries WHERE state = 'pending'`)) as { at: number | null };
    return r.at;
  }

  async recordAttempt(responseId: string, a: AttemptRow): Promise<void> {
    await this.db.run('INSERT INTO webhook_attempts (response_id, round, attempt, at, status_code, latency_ms, error) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      responseId,
      a.round,
      a.attempt,
      a.at,
      a.status_code,
      a.latency_ms,
      a.error,
    ]);
  }

  /** Closes a round: delivered, failed for good, or pending again at `nextAt`. */
  async finishRound(responseId: string, state: 'delivered' | 'failed' | 'pending', nextAt: number, at: number): Promise<void> {
    await this.db.run('UPDATE webhook_deliveries SET state = ?, rounds_done = rounds_done + 1, next_at = ?, updated_at = ? WHERE response_id = ?', [
      state,
      nextAt,
      at,
      responseId,
    ]);
  }

  /** Starts a fresh series of up to `rounds` rounds now. */
  async redeliver(responseId: string, rounds: number, at: number): Promise<void> {
    await this.db.run(`UPDATE webhook_deliveries SET state = 'pending', round_limit = rounds_done + ?, next_at = ?, updated_at = ? WHERE response_id = ?`, [
      rounds,
      at,
      at,
      responseId,
    ]);
  }

  async attempts(responseId: string): Promise<AttemptRow[]> {
    return (await this.db.all('SELECT round, attempt, at, status_code, latency_ms, error FROM webhook_attempts WHERE response_id = ? ORDER BY id', [
      responseId,
    ])) as AttemptRow[];
  }
}
