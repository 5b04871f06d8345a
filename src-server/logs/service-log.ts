import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { formatWithOptions } from 'node:util';
import type { Logger } from '../logger.js';
import { LOG_LEVELS, type LogLevel, type ServiceLogEntry } from '../contract/service-admin.js';

/** Entries of this run kept in memory for GET /v1/service/log. */
const RING_SIZE = 5000;
/** One message is cut beyond this (a huge error body must not fill the ring). */
const MAX_MESSAGE = 8 * 1024;
/** The file is rotated to `service.log.1` beyond this (one old generation is kept). */
const MAX_FILE_BYTES = 10 * 1024 * 1024;

const SERVICE_LOG_FILE = path.join('logs', 'service.log');

/**
 * The service's log: every `app.log` call lands in a bounded ring (what the API and the UI
 * show, live through `events`), in `<data dir>/logs/service.log` (older runs too), and in
 * the logger it wraps (the console, or a quiet one in tests). Writing the file is
 * synchronous: log lines are rare (warnings, errors, lifecycle), and a line must be on
 * disk before a crash that it explains.
 */
export class ServiceLog implements Logger {
  readonly file: string;
  readonly events = new EventEmitter();
  private ring: ServiceLogEntry[] = [];
  private seq = 0;
  private fileBytes = 0;
  private fileBroken = false;

  constructor(
    dataDir: string,
    private next: Logger,
  ) {
    this.file = path.join(dataDir, SERVICE_LOG_FILE);
    this.events.setMaxListeners(0);
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      this.fileBytes = fs.existsSync(this.file) ? fs.statSync(this.file).size : 0;
    } catch {
      this.fileBroken = true;
    }
  }

  info(...args: unknown[]) {
    this.write('info', args);
    this.next.info(...args);
  }
  warn(...args: unknown[]) {
    this.write('warn', args);
    this.next.warn(...args);
  }
  error(...args: unknown[]) {
    this.write('error', args);
    this.next.error(...args);
  }

  /** Entries after `after` at `level` or above whose message contains `search`; the newest `limit` (or with `after`, the first `limit`). */
  read(q: { level?: LogLevel; after?: number; limit: number; search?: string }): { data: ServiceLogEntry[]; lastSeq: number; dropped: number } {
    const min = LOG_LEVELS.indexOf(q.level ?? 'info');
    const needle = q.search?.toLowerCase();
    const all = this.ring.filter((e) => e.seq > (q.after ?? 0) && LOG_LEVELS.indexOf(e.level) >= min && (!needle || e.message.toLowerCase().includes(needle)));
    const data = q.after ? all.slice(0, q.limit) : all.slice(-q.limit);
    // A full page after `after` resumes at its last entry; otherwise everything up to now was seen.
    const lastSeq = q.after && data.length === q.limit ? data[data.length - 1]!.seq : this.seq;
    return { data, lastSeq, dropped: Math.max(0, this.seq - RING_SIZE) };
  }

  private write(level: LogLevel, args: unknown[]) {
    let message = formatWithOptions({ colors: false, depth: 4, breakLength: Infinity }, ...args);
    if (message.length > MAX_MESSAGE) message = `${message.slice(0, MAX_MESSAGE)}… (${message.length - MAX_MESSAGE} more characters)`;
    const entry: ServiceLogEntry = { seq: ++this.seq, at: new Date().toISOString(), level, message };
    this.ring.push(entry);
    if (this.ring.length > RING_SIZE) this.ring.splice(0, this.ring.length - RING_SIZE);
    this.append(entry);
    this.events.emit('entry', entry);
  }

  private append(e: ServiceLogEntry) {
    if (this.fileBroken) return;
    const line = `${e.at} ${e.level.toUpperCase().padEnd(5)} ${e.message.replace(/\n/g, '\n    ')}\n`;
    try {
      if (this.fileBytes + line.length > MAX_FILE_BYTES) {
        fs.renameSync(this.file, `${this.file}.1`);
        this.fileBytes = 0;
      }
      fs.appendFileSync(this.file, line, { mode: 0o600 });
      this.fileBytes += Buffer.byteLength(line);
    } catch {
      this.fileBroken = true; // a full or read-only disk must not take the service down with it
    }
  }
}
