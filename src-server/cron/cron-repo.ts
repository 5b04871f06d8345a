import type { CronRun } from '../contract/cron.js';
import type { Db } from '../db/connection.js';

export interface CronRow {
  id: string;
  box_id: string;
  org_id: string;
  seq: number;
  schedule: string;
  timezone: string;
  command: string;
  cwd: string | null;
  user: string | null;
  env_names: string | null;
  env_sealed: Buffer | null;
  timeout: number | null;
  next_run_at: string;
  last_run_at: string | null;
  created_at: string;
}

export class CronRepo {
  constructor(private db: Db) {}

  insert(r: Omit<CronRow, 'seq'>): CronRow {
    const seq = (this.db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS s FROM cron_jobs WHERE box_id = ?').get(r.box_id) as { s: number }).s;
    this.db
      .prepare(
        `INSERT INTO cron_jobs (id, box_id, org_id, seq, schedule, timezone, command, cwd, user, env_names, env_sealed, timeout, next_run_at, last_run_at, created_at)
         VALUES (@id, @box_id, @org_id, @seq, @schedule, @timezone, @command, @cwd, @user, @env_names, @env_sealed, @timeout, @next_run_at, @last_run_at, @created_at)`,
      )
      .run({ ...r, seq });
    return this.get(r.id)!;
  }

  get(id: string): CronRow | undefined {
    return this.db.prepare('SELECT * FROM cron_jobs WHERE id = ?').get(id) as CronRow | undefined;
  }

  page(boxId: string, limit: number, offset: number): { rows: CronRow[]; total: number } {
    const rows = this.db.prepare('SELECT * FROM cron_jobs WHERE box_id = ? ORDER BY seq LIMIT ? OFFSET ?').all(boxId, limit, offset) as CronRow[];
    const total = (this.db.prepare('SELECT COUNT(*) AS n FROM cron_jobs WHERE box_id = ?').get(boxId) as { n: number }).n;
    return { rows, total };
  }

  listOrg(orgId: string): CronRow[] {
    return this.db.prepare('SELECT * FROM cron_jobs WHERE org_id = ? ORDER BY created_at, seq').all(orgId) as CronRow[];
  }

  due(now: string): CronRow[] {
    return this.db.prepare('SELECT * FROM cron_jobs WHERE next_run_at <= ? ORDER BY next_run_at').all(now) as CronRow[];
  }

  markStarted(id: string, startedAt: string, nextRunAt: string): void {
    this.db.prepare('UPDATE cron_jobs SET last_run_at = ?, next_run_at = ? WHERE id = ?').run(startedAt, nextRunAt, id);
  }

  /** A run started outside the schedule (Run now): the next scheduled run stays as it was. */
  markRan(id: string, startedAt: string): void {
    this.db.prepare('UPDATE cron_jobs SET last_run_at = ? WHERE id = ?').run(startedAt, id);
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM cron_runs WHERE cron_id = ?').run(id);
    this.db.prepare('DELETE FROM cron_jobs WHERE id = ?').run(id);
  }

  deleteForBox(boxId: string): void {
    for (const r of this.db.prepare('SELECT id FROM cron_jobs WHERE box_id = ?').all(boxId) as { id: string }[]) this.delete(r.id);
  }

  addRun(run: CronRun & { cron_id: string }): void {
    this.db
      .prepare(
        'INSERT INTO cron_runs (id, cron_id, started_at, finished_at, status, return_code, output_tail) VALUES (@run_id, @cron_id, @started_at, @finished_at, @status, @return_code, @output_tail)',
      )
      .run(run);
  }

  finishRun(runId: string, status: CronRun['status'], returnCode: number | null, tail: string): void {
    this.db
      .prepare('UPDATE cron_runs SET finished_at = ?, status = ?, return_code = ?, output_tail = ? WHERE id = ?')
      .run(new Date().toISOString(), status, returnCode, tail, runId);
  }

  runs(cronId: string, limit = 50): CronRun[] {
    return (
      this.db.prepare('SELECT * FROM cron_runs WHERE cron_id = ? ORDER BY started_at DESC LIMIT ?').all(cronId, limit) as (CronRun & { id: string })[]
    ).map(({ id, ...r }) => ({ ...r, run_id: id }) as CronRun);
  }

  /** A run still marked running after a restart never finished. */
  failUnfinishedRuns(): void {
    this.db.prepare("UPDATE cron_runs SET status = 'failed', finished_at = ? WHERE status = 'running'").run(new Date().toISOString());
  }
}
