import type { Db } from '../../db/connection.js';

type PullState = 'downloading' | 'verifying' | 'completed' | 'failed' | 'cancelled';

export interface PullRow {
  id: string;
  catalog_id: string | null;
  url: string;
  name: string;
  /** Expected checksum (catalog, caller or publisher); after completion, the verified one. */
  sha256: string | null;
  state: PullState;
  bytes_done: number;
  bytes_total: number | null;
  error: string | null;
  created_at: number;
  updated_at: number;
}

/** The only SQL on model_pulls. */
export class PullsRepo {
  constructor(private db: Db) {}

  create(r: Omit<PullRow, 'state' | 'bytes_done' | 'bytes_total' | 'error' | 'updated_at'>): void {
    this.db
      .prepare(
        `INSERT INTO model_pulls (id, catalog_id, url, name, sha256, state, created_at, updated_at)
         VALUES (@id, @catalog_id, @url, @name, @sha256, 'downloading', @created_at, @created_at)`,
      )
      .run(r);
  }

  get(id: string): PullRow | undefined {
    return this.db.prepare('SELECT * FROM model_pulls WHERE id = ?').get(id) as PullRow | undefined;
  }

  list(): PullRow[] {
    return this.db.prepare('SELECT * FROM model_pulls ORDER BY created_at DESC LIMIT 100').all() as PullRow[];
  }

  /** Pulls a restart cut off: they resume. */
  unfinished(): PullRow[] {
    return this.db.prepare("SELECT * FROM model_pulls WHERE state IN ('downloading', 'verifying') ORDER BY created_at").all() as PullRow[];
  }

  progress(id: string, done: number, total: number | null): void {
    this.db.prepare('UPDATE model_pulls SET bytes_done = ?, bytes_total = ?, updated_at = ? WHERE id = ?').run(done, total, Date.now(), id);
  }

  /** Records the checksum the publisher advertises when the pull has none; false if it had one. */
  expect(id: string, sha256: string): boolean {
    return this.db.prepare('UPDATE model_pulls SET sha256 = ?, updated_at = ? WHERE id = ? AND sha256 IS NULL').run(sha256, Date.now(), id).changes > 0;
  }

  /** Moves to `state` unless the pull already ended (a cancel wins over a late finish). */
  set(id: string, state: PullState, f: { error?: string | null; sha256?: string | null } = {}): boolean {
    const r = this.db
      .prepare(
        `UPDATE model_pulls SET state = ?, error = COALESCE(?, error), sha256 = COALESCE(?, sha256), updated_at = ?
          WHERE id = ? AND state IN ('downloading', 'verifying')`,
      )
      .run(state, f.error ?? null, f.sha256 ?? null, Date.now(), id);
    return r.changes > 0;
  }
}
