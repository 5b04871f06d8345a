import { z } from 'zod';
import { idSchema } from './common.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const ExecBody = z.strictObject({
  command: z.union([z.string().min(1).max(65536), z.array(z.string().max(65536)).min(1).max(1024)]),
  cwd: z.string().startsWith('/', 'must be an absolute path').max(4096).optional(),
  env: z.record(z.string().regex(ENV_NAME, 'names must be letters, digits and "_"'), z.string().max(65536)).optional(),
  user: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z_][a-z0-9_-]*\$?$/, 'must be a user name')
    .optional(),
  timeout: z
    .number()
    .int()
    .min(1)
    .max(7 * 86400)
    .optional(),
  background: z.boolean().optional(),
  open_stdin: z.boolean().optional(),
  tty: z.strictObject({ cols: z.number().int().min(1).max(1000), rows: z.number().int().min(1).max(1000) }).optional(),
  idempotency_key: z
    .string()
    .min(1)
    .max(255)
    .refine((k) => new TextEncoder().encode(k).length <= 255, 'must be at most 255 bytes')
    .optional(),
});
export type ExecBody = z.infer<typeof ExecBody>;

export const ExecParams = z.object({ box_id: idSchema('box', 'box_id'), exec_id: idSchema('exec', 'exec_id') });
export const StdinQuery = z.object({
  offset: z.string().regex(/^\d+$/, 'must be a byte offset').transform(Number).optional(),
  eof: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => v === 'true' || v === '1'),
});
export const CancelBody = z.strictObject({ force: z.boolean().optional() });
export const ResizeBody = z.strictObject({ cols: z.number().int().min(1).max(1000), rows: z.number().int().min(1).max(1000) });

export type ExecStatus = 'running' | 'succeeded' | 'failed' | 'timed_out' | 'cancelled';

export type ExecEvent =
  | { type: 'started'; exec_id: string }
  | { type: 'stdout' | 'stderr'; data: string; seq: number }
  | { type: 'heartbeat' }
  | { type: 'exit'; status: Exclude<ExecStatus, 'running'>; return_code: number | null }
  | { type: 'error'; code: string; message: string };

const EXEC_STATUSES = ['running', 'succeeded', 'failed', 'timed_out', 'cancelled'] as const;

export const ExecInfo = z.object({
  exec_id: z.string(),
  box_id: z.string(),
  command: z.union([z.string(), z.array(z.string())]),
  tty: z.boolean(),
  status: z.enum(EXEC_STATUSES),
  return_code: z.number().int().nullable(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
});
export type ExecInfo = z.infer<typeof ExecInfo>;

/** POST .../exec/{id}/wait: the end of a command with the tails of its output. */
export const ExecResult = z.object({
  exec_id: z.string(),
  status: z.enum(EXEC_STATUSES),
  return_code: z.number().int().nullable(),
  stdout: z.string(),
  stderr: z.string(),
});
export type ExecResult = z.infer<typeof ExecResult>;
export const ExecCancelled = z.object({ exec_id: z.string(), status: z.enum([...EXEC_STATUSES, 'cancelling']) });
export const StdinAccepted = z.object({ accepted_through: z.number().int() });
export const ExecResized = z.object({ exec_id: z.string(), cols: z.number().int(), rows: z.number().int() });
