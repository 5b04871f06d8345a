import type { CronJob } from '@box/contract/cron';
import type { CronRow } from './cron-repo.js';

/** Spec shape: optional fields absent when unset; env values never leave the service. */
export function toJob(r: CronRow): CronJob {
  const job: CronJob = {
    id: r.id,
    box_id: r.box_id,
    schedule: r.schedule,
    timezone: r.timezone,
    command: r.command,
    next_run_at: r.next_run_at,
    created_at: r.created_at,
  };
  if (r.cwd !== null) job.cwd = r.cwd;
  if (r.user !== null) job.user = r.user;
  if (r.env_names !== null) job.env_names = JSON.parse(r.env_names);
  if (r.timeout !== null) job.timeout = r.timeout;
  if (r.last_run_at !== null) job.last_run_at = r.last_run_at;
  // Key order as in the spec table.
  const { id, box_id, schedule, timezone, command, cwd, user, env_names, timeout, next_run_at, last_run_at, created_at } = job;
  return JSON.parse(JSON.stringify({ id, box_id, schedule, timezone, command, cwd, user, env_names, timeout, next_run_at, last_run_at, created_at }));
}
