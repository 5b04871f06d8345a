/**
 * Where the service's messages go (logs/service-log.ts ServiceLog; a console in tests).
 * A call may end with a plain object of fields (`log.info('box started', { box_id, duration_ms })`):
 * the service log keeps them apart from the message (JSON lines in the file, `fields` in the
 * API), and the terminal shows them as `key=value` after it.
 */
export interface Logger {
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

/** A log line's fields: box id, app, phase, duration, request id... (snake_case names, scalar values). */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** The slice of the log the VM runtime is handed (image and template builds). */
export interface RuntimeLog {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
}
