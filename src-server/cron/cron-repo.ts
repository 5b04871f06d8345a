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

  /** The box's next number and the insert in one transaction, under a lock on the box's row (two creates at once get two numbers). */
  async insert(r: Omit<CronRow, 'seq'>): Promise<CronRow> {
    await this.db.transaction(async () => {
      await this.db.get(`SELECT id FROM boxes WHERE id = ?${this.db.forUpdate}`, [r.box_id]);
      const seq = ((await this.db.get('SELECT COALESCE(MAX(seq), 0) + 1 AS s FROM cron_jobs WHERE box_id = ?', [r.box_id])) as { s: number }).s;
      await this.db.run(
        `INSERT INTO cron_jobs (id, box_id, org_id, seq, schedule, timezone, command, cwd, "user", env_names, env_sealed, timeout, next_run_at, last_run_at, created_at)
           VALUES (@id, @box_id, @org_id, @seq, @schedule, @timezone, @command, @cwd, @user, @env_names, @env_sealed, @timeout, @next_run_at, @last_run_at, @created_at)`,
        { ...r, seq },
      );
    });
    return (await this.get(r.id))!;
  }

  async get(id: string): Promise<CronRow | undefined> {
    return (await this.db.get('SELECT * FROM cron_jobs WHERE id = ?', [id])) as CronRow | undefined;
  }

  async page(boxId: string, limit: number, offset: number): Promise<{ rows: CronRow[]; total: number }> {
    const rows = (await this.db.all('SELECT * FROM cron_jobs WHERE box_id = ? ORDER BY seq LIMIT ? OFFSET ?', [boxId, limit, offset])) as CronRow[];
    const total = ((await this.db.get('SELECT COUNT(*) AS n FROM cron_jobs WHERE box_id = ?', [boxId])) as { n: number }).n;
    return { rows, total };
  }

  async listOrg(orgId: string): Promise<CronRow[]> {
    return (await this.db.all('SELECT * FROM cron_jobs WHERE org_id = ? ORDER BY created_at, seq', [orgId])) as CronRow[];
  }

  async due(now: string): Promise<CronRow[]> {
    return (await this.db.all('SELECT * FROM cron_jobs WHERE next_run_at <= ? ORDER BY next_run_at', [now])) as CronRow[];
  }

  async markStarted(id: string, startedAt: string, nextRunAt: string): Promise<void> {
    await this.db.run('UPDATE cron_jobs SET last_run_at = ?, next_run_at = ? WHERE id = ?', [startedAt, nextRunAt, id]);
  }

  /** A run started outside the schedule (Run now): the next scheduled run stays as it was. */
  async markRan(id: string, startedAt: string): Promise<void> {
    await this.db.run('UPDATE cron_jobs SET last_run_at = ? WHERE id = ?', [startedAt, id]);
  }

  async delete(id: string): Promise<void> {
    await this.db.run('DELETE FROM cron_runs WHERE cron_id = ?', [id]);
    await this.db.run('DELETE FROM cron_jobs WHERE id = ?', [id]);
  }

  async deleteForBox(boxId: string): Promise<void> {
    for (const r of (await this.db.all('SELECT id FROM cron_jobs WHERE box_id = ?', [boxId])) as { id: string }[]) await this.delete(r.id);
  }

  async addRun(run: CronRun & { cron_id: string }): Promise<void> {
    await this.db.run(
      'INSERT INTO cron_runs (id, cron_id, started_at, finished_at, status, return_code, output_tail) VALUES (@run_id, @cron_id, @started_at, @finished_at, @status, @return_code, @output_tail)',
      run,
    );
  }

  async finishRun(runId: string, status: CronRun['status'], returnCode: number | null, tail: string): Promise<void> {
    await this.db.run('UPDATE cron_runs SET finished_at = ?, status = ?, return_code = ?, output_tail = ? WHERE id = ?', [
      new Date().toISOString(),
      status,
      returnCode,
      tail,
      runId,
    ]);
  }

  async runs(cronId: string, limit = 50): Promise<CronRun[]> {
    return (
      (await this.db.all('SELECT * FROM cron_runs WHERE cron_id = ? ORDER BY started_at DESC LIMIT ?', [cronId, limit])) as (CronRun & { id: string })[]
    ).map(({ id, ...r }) => ({ ...r, run_id: id }) as CronRun);
  }

  /** A run still marked running after a restart never finished. */
  async failUnfinishedRuns(): Promise<void> {
    await this.db.run("UPDATE cron_runs SET status = 'failed', finished_at = ? WHERE status = 'running'", [new Date().toISOString()]);
  }
}
