import type { Db } from '../../db/connection.js';
import type { NativeRequest, NativeResult, ResponseStatus, StoredError, WireStyle } from '../native.js';

/** A stored inference request of any wire style, with its outcome once finished. */
export interface StoredResponse {
  id: string;
  orgId: string;
  keyId: string;
  style: WireStyle;
  status: ResponseStatus;
  background: boolean;
  native: NativeRequest;
  echo: Record<string, unknown>;
  metadata: Record<string, string>;
  result: NativeResult | null;
  error: StoredError | null;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
}

interface Row {
  id: string;
  org_id: string;
  key_id: string;
  style: WireStyle;
  model: string;
  status: ResponseStatus;
  background: number;
  request: string;
  echo: string;
  metadata: string;
  result: string | null;
  error: string | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
}

const fromRow = (r: Row): StoredResponse => ({
  id: r.id,
  orgId: r.org_id,
  keyId: r.key_id,
  style: r.style,
  status: r.status,
  background: r.background === 1,
  native: JSON.parse(r.request),
  echo: JSON.parse(r.echo),
  metadata: JSON.parse(r.metadata),
  result: r.result ? JSON.parse(r.result) : null,
  error: r.error ? JSON.parse(r.error) : null,
  createdAt: r.created_at,
  startedAt: r.started_at,
  completedAt: r.completed_at,
});

/** The only SQL on inference_responses. */
export class ResponsesRepo {
  constructor(private db: Db) {}

  /** Inserts the whole record (a finished synchronous request arrives complete). */
  async insert(r: StoredResponse): Promise<void> {
    await this.db.run(
      `INSERT INTO inference_responses (id, org_id, key_id, style, model, status, background, request, echo, metadata, result, error, created_at, started_at, completed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.id,
        r.orgId,
        r.keyId,
        r.style,
        r.native.model,
        r.status,
        r.background ? 1 : 0,
        JSON.stringify(r.native),
        JSON.stringify(r.echo),
        JSON.stringify(r.metadata),
        r.result ? JSON.stringify(r.result) : null,
        r.error ? JSON.stringify(r.error) : null,
        r.createdAt,
        r.startedAt,
        r.completedAt,
      ],
    );
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    const row = (await this.db.get('SELECT * FROM inference_responses WHERE id = ?', [id])) as Row | undefined;
    return row && fromRow(row);
  }

  /** queued → in_progress; false when another worker already took it. */
  async markStarted(id: string, at: number): Promise<boolean> {
    return (
      (await this.db.run(`UPDATE inference_responses SET status = 'in_progress', started_at = ? WHERE id = ? AND status = 'queued'`, [at, id])).changes === 1
    );
  }

  async finish(id: string, status: 'completed' | 'incomplete' | 'failed', result: NativeResult | null, error: StoredError | null, at: number): Promise<void> {
    await this.db.run('UPDATE inference_responses SET status = ?, result = ?, error = ?, completed_at = ? WHERE id = ?', [
      status,
      result ? JSON.stringify(result) : null,
      error ? JSON.stringify(error) : null,
      at,
      id,
    ]);
  }

  /**
   * After a restart: background work that was running goes back to the queue, and a
   * synchronous request cut off mid-way is failed (its caller's connection is gone).
   */
  async recoverAfterRestart(at: number): Promise<void> {
    await this.db.run(`UPDATE inference_responses SET status = 'queued' WHERE status = 'in_progress' AND background = 1`);
    await this.db.run(
      `UPDATE inference_responses SET status = 'failed', error = ?, completed_at = ? WHERE status IN ('queued', 'in_progress') AND background = 0`,
      [JSON.stringify({ code: 'interrupted', message: 'The service restarted while this request was running.' }), at],
    );
  }

  async queuedIds(limit: number): Promise<string[]> {
    return ((await this.db.all(`SELECT id FROM inference_responses WHERE status = 'queued' ORDER BY created_at LIMIT ?`, [limit])) as { id: string }[]).map(
      (r) => r.id,
    );
  }
}
