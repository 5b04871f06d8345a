import { CronExpressionParser } from 'cron-parser';
import type { AppBase } from '../app-context.js';
import type { BoxRecord } from '../boxes/ports.js';
import { newId } from '../contract/common.js';
import type { CreateCronBody, CronJob, CronRun } from '../contract/cron.js';
import { invalid, notFound } from '../core/domain-errors.js';
import { CryptoBox } from '../util/crypto-box.js';
import { CronRepo, type CronRow } from './cron-repo.js';
import { toJob } from './cron-view.js';

/** Next time the schedule fires after `from`, read in the job's time zone. */
export function nextRun(schedule: string, timezone: string, from: Date): string {
  try {
    return CronExpressionParser.parse(schedule, { tz: timezone, currentDate: from }).next().toDate().toISOString();
  } catch (e) {
    throw invalid(`Invalid schedule "${schedule}": ${(e as Error).message}`, 'schedule');
  }
}

/**
 * Cron jobs live in the service, not in the guest: listing never wakes a box; a due job
 * wakes a sleeping box, runs through exec, and puts it back to sleep.
 */
export class CronService {
  readonly repo: CronRepo;
  private crypto: CryptoBox;

  constructor(private app: AppBase) {
    this.repo = new CronRepo(app.db);
    this.crypto = CryptoBox.forDataDir(app.config.dataDir);
  }

  /** At start: runs that were going when the service stopped are failed. */
  recover(): Promise<void> {
    return this.repo.failUnfinishedRuns();
  }

  async create(box: BoxRecord, body: CreateCronBody): Promise<CronJob> {
    const now = new Date();
    const env = body.env && Object.keys(body.env).length ? body.env : undefined;
    const row = await this.repo.insert({
      id: newId('cron'),
      box_id: box.box_id,
      org_id: box.org_id,
      schedule: body.schedule.trim().split(/\s+/).join(' '),
      timezone: body.timezone,
      command: body.command,
      cwd: body.cwd ?? null,
      user: body.user ?? null,
      env_names: env ? JSON.stringify(Object.keys(env).sort()) : null,
      env_sealed: env ? this.crypto.seal(JSON.stringify(env)) : null,
      timeout: body.timeout ?? null,
      next_run_at: nextRun(body.schedule, body.timezone, now),
      last_run_at: null,
      created_at: now.toISOString(),
    });
    return toJob(row);
  }

  async get(boxId: string, cronId: string): Promise<CronRow> {
    const row = await this.repo.get(cronId);
    if (!row || row.box_id !== boxId) throw notFound(`No cron job ${cronId} on box ${boxId}.`, null, 'cron_id');
    return row;
  }

  /** One page of the box's jobs, oldest first. */
  async page(boxId: string, limit: number, offset: number): Promise<{ rows: CronJob[]; total: number }> {
    const { rows, total } = await this.repo.page(boxId, limit, offset);
    return { rows: rows.map(toJob), total };
  }

  /** Every job of the organization, across boxes. */
  async listOrg(orgId: string): Promise<CronJob[]> {
    return (await this.repo.listOrg(orgId)).map(toJob);
  }

  /** Notes a run started by hand (Run now) as the job's last run. */
  async markRan(cronId: string, startedAt: string): Promise<void> {
    await this.repo.markRan(cronId, startedAt);
  }

  /** Recent runs of a job, newest first. */
  async runs(cronId: string, limit?: number): Promise<CronRun[]> {
    return await this.repo.runs(cronId, limit);
  }

  /** Deletes the job (and its runs); answers it as it was. */
  async delete(row: CronRow): Promise<CronJob> {
    await this.repo.delete(row.id);
    return toJob(row);
  }

  env(row: CronRow): Record<string, string> | undefined {
    return row.env_sealed ? JSON.parse(this.crypto.openString(row.env_sealed)) : undefined;
  }
}
