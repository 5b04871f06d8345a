import type { Statement } from 'better-sqlite3';
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
  private stmts = new Map<string, Statement>();
  constructor(private db: Db) {}

  /** Statements are prepared once per connection (preparing costs more than running). */
  private stmt(sql: string): Statement {
    let st = this.stmts.get(sql);
    if (!st) this.stmts.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  /** Inserts the whole record (a finished synchronous request arrives complete). */
  insert(r: StoredResponse): void {
    this.stmt(
      `INSERT INTO inference_responses (id, org_id, key_id, style, model, status, background, request, echo, metadata, result, error, created_at, started_at, completed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
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
    );
  }

  get(id: string): StoredResponse | undefined {
    const row = this.stmt('SELECT * FROM inference_responses WHERE id = ?').get(id) as Row | undefined;
    return row && fromRow(row);
  }

  /** queued → in_progress; false when another worker already took it. */
  markStarted(id: string, at: number): boolean {
    return this.stmt(`UPDATE inference_responses SET status = 'in_progress', started_at = ? WHERE id = ? AND status = 'queued'`).run(at, id).changes === 1;
  }

  finish(id: string, status: 'completed' | 'incomplete' | 'failed', result: NativeResult | null, error: StoredError | null, at: number): void {
    this.stmt('UPDATE inference_responses SET status = ?, result = ?, error = ?, completed_at = ? WHERE id = ?').run(
      status,
      result ? JSON.stringify(result) : null,
      error ? JSON.stringify(error) : null,
      at,
      id,
    );
  }

  /**
   * After a restart: background work that was running goes back to the queue, and a
   * synchronous request cut off mid-way is failed (its caller's connection is gone).
   */
  recoverAfterRestart(at: number): void {
    this.stmt(`UPDATE inference_responses SET status = 'queued' WHERE status = 'in_progress' AND background = 1`).run();
    this.stmt(`UPDATE inference_responses SET status = 'failed', error = ?, completed_at = ? WHERE status IN ('queued', 'in_progress') AND background = 0`).run(
      JSON.stringify({ code: 'interrupted', message: 'The service restarted while this request was running.' }),
      at,
    );
  }

  queuedIds(limit: number): string[] {
    return (this.db.prepare(`SELECT id FROM inference_responses WHERE status = 'queued' ORDER BY created_at LIMIT ?`).all(limit) as { id: string }[]).map(
      (r) => r.id,
    );
  }
}
