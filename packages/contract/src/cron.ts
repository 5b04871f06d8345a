import { z } from 'zod';
import { idSchema } from './common.js';

/** Five whitespace-separated fields (minute hour day-of-month month day-of-week). */
const FIVE_FIELDS = /^\s*\S+(\s+\S+){4}\s*$/;

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const CreateCronBody = z.strictObject({
  schedule: z.string().min(1).max(256).regex(FIVE_FIELDS, 'must be a five-field cron expression (minute hour day month weekday)'),
  timezone: z.string().min(1).max(64).refine(isTimeZone, 'must be an IANA time zone such as "Europe/Paris" or "UTC"').optional().default('UTC'),
  command: z.string().min(1).max(65536),
  cwd: z.string().startsWith('/', 'must be an absolute path').max(4096).optional(),
  user: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z_][a-z0-9_-]*\$?$/, 'must be a user name')
    .optional(),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'names must be letters, digits and "_"'), z.string().max(65536)).optional(),
  timeout: z.number().int().min(1).max(86400).optional(),
});
export type CreateCronBody = z.infer<typeof CreateCronBody>;

export const CronParams = z.object({ box_id: idSchema('box', 'box_id'), cron_id: idSchema('cron', 'cron_id') });

/** Spec, Cron job: optional fields are absent (not null) when unset. */
export const CronJob = z.object({
  id: z.string(),
  box_id: z.string(),
  schedule: z.string(),
  timezone: z.string(),
  command: z.string(),
  cwd: z.string().optional(),
  user: z.string().optional(),
  env_names: z.array(z.string()).optional(),
  timeout: z.number().int().optional(),
  next_run_at: z.string(),
  last_run_at: z.string().optional(),
  created_at: z.string(),
});
export type CronJob = z.infer<typeof CronJob>;

export const CronRun = z.object({
  run_id: z.string(),
  cron_id: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  status: z.enum(['running', 'succeeded', 'failed', 'timed_out', 'cancelled', 'skipped']),
  return_code: z.number().int().nullable(),
  output_tail: z.string(),
});
export type CronRun = z.infer<typeof CronRun>;
