import type { Db } from './connection.js';

interface IdemRecord {
  request_hash: string;
  state: 'in_flight' | 'done';
  status: number | null;
  content_type: string | null;
  body: Buffer | null;
  created_at: number;
}

/** Keys are kept 48 h (the spec asks for at least 24 h). */
export const IDEMPOTENCY_RETENTION_MS = 48 * 3600 * 1000;

export class IdempotencyRepo {
  constructor(private db: Db) {}

  get(apiKeyId: string, key: string): IdemRecord | undefined {
    return this.db
      .prepare('SELECT request_hash, state, status, content_type, body, created_at FROM idempotency_keys WHERE api_key_id = ? AND key = ?')
      .get(apiKeyId, key) as IdemRecord | undefined;
  }

  /** Claims the key for a request; false when another request holds it already. */
  claim(apiKeyId: string, key: string, requestHash: string): boolean {
    const r = this.db
      .prepare(
        `INSERT INTO idempotency_keys (api_key_id, key, request_hash, state, created_at) VALUES (?, ?, ?, 'in_flight', ?)
         ON CONFLICT (api_key_id, key) DO NOTHING`,
      )
      .run(apiKeyId, key, requestHash, Date.now());
    return r.changes === 1;
  }

  settle(apiKeyId: string, key: string, status: number, contentType: string, body: Buffer): void {
    this.db
      .prepare(
        "UPDATE idempotency_keys SET state = 'done', status = ?, content_type = ?, body = ? WHERE api_key_id = ? AND key = ?",
      )
      .run(status, contentType, body, apiKeyId, key);
  }

  release(apiKeyId: string, key: string): void {
    this.db.prepare('DELETE FROM idempotency_keys WHERE api_key_id = ? AND key = ?').run(apiKeyId, key);
  }

  /** After a crash, claims left in flight are unsettled (spec rule 7): free them for a retry. */
  releaseAllInFlight(): void {
    this.db.prepare("DELETE FROM idempotency_keys WHERE state = 'in_flight'").run();
  }

  purgeOlderThan(ms: number): void {
    this.db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?').run(Date.now() - ms);
  }
}
