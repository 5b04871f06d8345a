/** Where the service's messages go (logs/service-log.ts ServiceLog; a console in tests). */
export interface Logger {
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}
