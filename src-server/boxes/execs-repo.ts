import type { Statement } from 'better-sqlite3';
import type { ExecInfo } from '../contract/exec.js';
import type { Db } from '../db/connection.js';
import { openFastConnection } from '../db/fast-connection.js';

interface ExecRow {
  id: string;
  box_id: string;
  command: string;
  tty: number;
  status: ExecInfo['status'];
  return_code: number | null;
  started_at: string;
  finished_at: string | null;
  stdout_tail: Buffer | null;
  stderr_tail: Buffer | null;
}

export const toExecInfo = (r: ExecRow): ExecInfo => ({
  exec_id: r.id,
  box_id: r.box_id,
  command: JSON.parse(r.command),
  tty: !!r.tty,
  status: r.status,
  return_code: r.return_code,
  started_at: r.started_at,
  finished_at: r.finished_at,
});

/**
 * The `execs` table (boxes area). Writes go through the NORMAL-sync connection
 * (db/fast-connection.ts): no fsync on the exec hot path; reads use the main connection.
 * The two writes every exec makes are prepared once: that connection has no statement
 * cache, and compiling them on each exec was ~0.15 ms of the service's CPU per exec.
 */
export class ExecsRepo {
  private records: Db;
  private insert: Statement;
  private update: Statement;

  constructor(
    private db: Db,
    dataDir: string,
  ) {
    this.records = openFastConnection(dataDir);
    this.insert = this.records.prepare(
      "INSERT INTO execs (id, box_id, org_id, command, tty, status, idempotency_key, started_at) VALUES (?, ?, ?, ?, ?, 'running', ?, ?)",
    );
    this.update = this.records.prepare('UPDATE execs SET status = ?, return_code = ?, finished_at = ?, stdout_tail = ?, stderr_tail = ? WHERE id = ?');
  }

  close(): void {
    this.records.close();
  }

  /** Commands that were running when the service stopped cannot be re-attached: mark them failed. */
  failRunning(at: string): void {
    this.db.prepare("UPDATE execs SET status = 'failed', finished_at = ? WHERE status = 'running'").run(at);
  }

  idByIdempotencyKey(boxId: string, key: string): string | undefined {
    return (this.db.prepare('SELECT id FROM execs WHERE box_id = ? AND idempotency_key = ?').get(boxId, key) as { id: string } | undefined)?.id;
  }

  insertRunning(r: { id: string; boxId: string; orgId: string; command: unknown; tty: boolean; idempotencyKey: string | null; startedAt: string }): void {
    this.insert.run(r.id, r.boxId, r.orgId, JSON.stringify(r.command), r.tty ? 1 : 0, r.idempotencyKey, r.startedAt);
  }

  finish(id: string, r: { status: string; returnCode: number | null; finishedAt: string | null; stdoutTail: Buffer; stderrTail: Buffer }): void {
    this.update.run(r.status, r.returnCode, r.finishedAt, r.stdoutTail, r.stderrTail, id);
  }

  get(boxId: string, execId: string): ExecRow | undefined {
    return this.db.prepare('SELECT * FROM execs WHERE id = ? AND box_id = ?').get(execId, boxId) as ExecRow | undefined;
  }

  /** Newest first. */
  list(boxId: string, limit: number): ExecRow[] {
    return this.db.prepare('SELECT * FROM execs WHERE box_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?').all(boxId, limit) as ExecRow[];
  }
}
