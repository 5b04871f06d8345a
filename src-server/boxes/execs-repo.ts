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
 * (The SQLite adapter caches each SQL text's statement: compiling the two writes on each
 * exec was ~0.15 ms of the service's CPU per exec.)
 */
export class ExecsRepo {
  private records: Db;

  constructor(
    private db: Db,
    dataDir: string,
  ) {
    this.records = openFastConnection(dataDir, db);
  }

  async close(): Promise<void> {
    if (this.records !== this.db) await this.records.close();
  }

  /** Commands that were running when the service stopped cannot be re-attached: mark them failed. */
  async failRunning(at: string): Promise<void> {
    await this.db.run("UPDATE execs SET status = 'failed', finished_at = ? WHERE status = 'running'", [at]);
  }

  async idByIdempotencyKey(boxId: string, key: string): Promise<string | undefined> {
    return ((await this.db.get('SELECT id FROM execs WHERE box_id = ? AND idempotency_key = ?', [boxId, key])) as { id: string } | undefined)?.id;
  }

  async insertRunning(r: {
    id: string;
    boxId: string;
    orgId: string;
    command: unknown;
    tty: boolean;
    idempotencyKey: string | null;
    startedAt: string;
  }): Promise<void> {
    await this.records.run(
      "INSERT INTO execs (id, box_id, org_id, command, tty, status, idempotency_key, started_at) VALUES (?, ?, ?, ?, ?, 'running', ?, ?)",
      [r.id, r.boxId, r.orgId, JSON.stringify(r.command), r.tty ? 1 : 0, r.idempotencyKey, r.startedAt],
    );
  }

  async finish(id: string, r: { status: string; returnCode: number | null; finishedAt: string | null; stdoutTail: Buffer; stderrTail: Buffer }): Promise<void> {
    await this.records.run('UPDATE execs SET status = ?, return_code = ?, finished_at = ?, stdout_tail = ?, stderr_tail = ? WHERE id = ?', [
      r.status,
      r.returnCode,
      r.finishedAt,
      r.stdoutTail,
      r.stderrTail,
      id,
    ]);
  }

  async get(boxId: string, execId: string): Promise<ExecRow | undefined> {
    return (await this.db.get('SELECT * FROM execs WHERE id = ? AND box_id = ?', [execId, boxId])) as ExecRow | undefined;
  }

  /** Newest first. */
  async list(boxId: string, limit: number): Promise<ExecRow[]> {
    return (await this.db.all(
      `SELECT * FROM execs WHERE box_id = ? ORDER BY started_at DESC, ${this.db.dialect === 'sqlite' ? 'rowid' : 'ctid'} DESC LIMIT ?`,
      [boxId, limit],
    )) as ExecRow[];
  }
}
