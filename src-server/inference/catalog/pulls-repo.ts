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

  async create(r: Omit<PullRow, 'state' | 'bytes_done' | 'bytes_total' | 'error' | 'updated_at'>): Promise<void> {
    await this.db.run(
      `INSERT INTO model_pulls (id, catalog_id, url, name, sha256, state, created_at, updated_at)
         VALUES (@id, @catalog_id, @url, @name, @sha256, 'downloading', @created_at, @created_at)`,
      r,
    );
  }

  async get(id: string): Promise<PullRow | undefined> {
    return (await this.db.get('SELECT * FROM model_pulls WHERE id = ?', [id])) as PullRow | undefined;
  }

  async list(): Promise<PullRow[]> {
    return (await this.db.all('SELECT * FROM model_pulls ORDER BY created_at DESC LIMIT 100')) as PullRow[];
  }

  /** Pulls a restart cut off: they resume. */
  async unfinished(): Promise<PullRow[]> {
    return (await this.db.all("SELECT * FROM model_pulls WHERE state IN ('downloading', 'verifying') ORDER BY created_at")) as PullRow[];
  }

  async progress(id: string, done: number, total: number | null): Promise<void> {
    await this.db.run('UPDATE model_pulls SET bytes_done = ?, bytes_total = ?, updated_at = ? WHERE id = ?', [done, total, Date.now(), id]);
  }

  /** Records the checksum the publisher advertises when the pull has none; false if it had one. */
  async expect(id: string, sha256: string): Promise<boolean> {
    return (await this.db.run('UPDATE model_pulls SET sha256 = ?, updated_at = ? WHERE id = ? AND sha256 IS NULL', [sha256, Date.now(), id])).changes > 0;
  }

  /** Moves to `state` unless the pull already ended (a cancel wins over a late finish). */
  async set(id: string, state: PullState, f: { error?: string | null; sha256?: string | null } = {}): Promise<boolean> {
    const r = await this.db.run(
      `UPDATE model_pulls SET state = ?, error = COALESCE(?, error), sha256 = COALESCE(?, sha256), updated_at = ?
          WHERE id = ? AND state IN ('downloading', 'verifying')`,
      [state, f.error ?? null, f.sha256 ?? null, Date.now(), id],
    );
    return r.changes > 0;
  }
}
