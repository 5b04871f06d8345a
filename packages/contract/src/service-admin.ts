import { z } from 'zod';
import { queryInt } from './common.js';

/**
 * The service's own log, a box's serial console, and service-wide settings (issue 15).
 * Shapes are ours (the spec names none): the log is a bounded in-memory ring of this
 * run (also appended to `<data dir>/logs/service.log`, one JSON object a line), the console is a box's serial log
 * file read from the end, both with a server-sent `?stream=1` form.
 */

export const LOG_LEVELS = ['info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const ServiceLogEntry = z.object({
  /** Increases by one per entry of this run; `after` pages and resumes from it. */
  seq: z.number().int(),
  at: z.string(),
  level: z.enum(LOG_LEVELS),
  message: z.string(),
  /** What the line is about, apart from its text: `box_id`, `phase`, `duration_ms`, `error`... (absent when none). */
  fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
});
export type ServiceLogEntry = z.infer<typeof ServiceLogEntry>;

export const ServiceLogQuery = z.object({
  /** The lowest level shown: `warn` shows warnings and errors. */
  level: z.enum(LOG_LEVELS).optional(),
  /** The newest `limit` entries (oldest first); with `after`, the first `limit` after it. */
  limit: queryInt(1, 5000, 200),
  after: queryInt(0, Number.MAX_SAFE_INTEGER, 0),
  /** Case-insensitive text filter on the message and the fields' values. */
  search: z.string().max(200).optional(),
  /** `1`: answer `text/event-stream`, one `entry` event per entry (the newest `limit` first). */
  stream: z.enum(['0', '1']).optional(),
});
export type ServiceLogQuery = z.infer<typeof ServiceLogQuery>;

export const ServiceLogPage = z.object({
  data: z.array(ServiceLogEntry),
  /** The seq to pass as `after` for what comes next. */
  last_seq: z.number().int(),
  /** Entries of this run no longer kept in memory (the file still has them). */
  dropped: z.number().int(),
  /** The log file on the service's machine (older runs too; rotated at 10 MiB). */
  file: z.string(),
});
export type ServiceLogPage = z.infer<typeof ServiceLogPage>;

/** The most a console read answers (the file itself may be larger). */
export const CONSOLE_MAX_BYTES = 1024 * 1024;

export const ConsoleQuery = z.object({
  /** The last N bytes of the console log (default 64 KiB, at most 1 MiB). */
  bytes: queryInt(1, CONSOLE_MAX_BYTES, 64 * 1024),
  /** Then only the last N lines of those bytes. */
  lines: queryInt(1, 100_000, 100_000),
  /** `1`: answer `text/event-stream`: the tail as one `chunk` event, then each new piece. */
  stream: z.enum(['0', '1']).optional(),
});
export type ConsoleQuery = z.infer<typeof ConsoleQuery>;

export const ConsoleTail = z.object({
  box_id: z.string(),
  /** The text (UTF-8, invalid bytes replaced). */
  data: z.string(),
  /** Byte offset in the log of the first byte returned, and the log's size. */
  offset: z.number().int(),
  size_bytes: z.number().int(),
  /** True when older output was left out (by `bytes` or `lines`). */
  truncated: z.boolean(),
});
export type ConsoleTail = z.infer<typeof ConsoleTail>;

/**
 * What quitting the service does to running boxes. `ask`: the desktop app asks (with
 * "remember"); a headless service cannot ask and stops them (see quit/quit-plan.ts).
 * `stop_boxes` puts each running box to sleep (memory saved, it wakes on its next exec,
 * file call or ingress: nothing is lost); `leave_running` leaves the VMs running, and the
 * next service start adopts them.
 */
const ON_QUIT = ['ask', 'stop_boxes', 'leave_running'] as const;
export type OnQuit = (typeof ON_QUIT)[number];

export const ServiceSettings = z.object({ on_quit: z.enum(ON_QUIT) });
export type ServiceSettings = z.infer<typeof ServiceSettings>;

export const PatchServiceSettings = z.strictObject({ on_quit: z.enum(ON_QUIT).optional() });
export type PatchServiceSettings = z.infer<typeof PatchServiceSettings>;

export const QuitPlanQuery = z.object({ where: z.enum(['desktop', 'headless']).optional().default('desktop') });

/** What quitting would do now: `ask` only on the desktop; `nothing` when no box runs. */
export const QuitPlan = z.object({
  action: z.enum(['ask', 'stop_boxes', 'leave_running', 'nothing']),
  running: z.number().int(),
  message: z.string(),
});
