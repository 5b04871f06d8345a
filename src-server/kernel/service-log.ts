import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { formatWithOptions } from 'node:util';
import type { LogFields, Logger } from './logger.js';
import { LOG_LEVELS, type LogLevel, type ServiceLogEntry } from '@box/contract/service-admin';

/** Entries of this run kept in memory for GET /v1/service/log. */
const RING_SIZE = 5000;
/** One message is cut beyond this (a huge error body must not fill the ring). */
const MAX_MESSAGE = 8 * 1024;
/** The file is rotated to `service.log.1` beyond this (one old generation is kept). */
const MAX_FILE_BYTES = 10 * 1024 * 1024;

const SERVICE_LOG_FILE = path.join('logs', 'service.log');

type Fields = NonNullable<ServiceLogEntry['fields']>;
/** Keys of a file line that fields may not take (a field of that name is written as `field_<name>`). */
const RESERVED = new Set(['at', 'level', 'msg']);
const isPlain = (v: unknown): v is LogFields => !!v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;

/** A call's arguments as its message and its fields: a trailing plain object, and an Error's message as `error`. */
function entryOf(args: unknown[]): { message: string; fields?: Fields; shown?: Fields } {
  const last = args[args.length - 1];
  const rest = args.length > 1 && isPlain(last) ? args.slice(0, -1) : args;
  let message = formatWithOptions({ colors: false, depth: 4, breakLength: Infinity }, ...rest);
  if (message.length > MAX_MESSAGE) message = `${message.slice(0, MAX_MESSAGE)}… (${message.length - MAX_MESSAGE} more characters)`;
  const given: Fields = {};
  if (rest !== args)
    for (const [k, v] of Object.entries(last as LogFields)) {
      if (v === undefined) continue;
      given[k] = typeof v === 'string' && v.length > 1024 ? `${v.slice(0, 1024)}…` : v;
    }
  const err = rest.find((a): a is Error => a instanceof Error);
  const fields: Fields = err && given.error === undefined ? { ...given, error: err.message } : given;
  if (!Object.keys(fields).length) return { message };
  // The terminal already shows an Error's text in the message: only the given fields follow it.
  return { message, fields, shown: given };
}

const kv = (f: Fields | undefined) =>
  f && Object.keys(f).length
    ? `  ${Object.entries(f)
        .map(([k, v]) => `${k}=${typeof v === 'string' && /[\s="]/.test(v) ? JSON.stringify(v) : String(v)}`)
        .join(' ')}`
    : '';

/**
 * The service's log: every `app.log` call lands in a bounded ring (what the API and the UI
 * show, live through `events`), in `<data dir>/logs/service.log` (older runs too; one JSON
 * object a line: `at`, `level`, `msg` and the fields), and in the logger it wraps (the
 * console, or a quiet one in tests), as a human line: the message, then `key=value` fields.
 * Writing the file is synchronous: log lines are rare (warnings, errors, lifecycle), and a
 * line must be on disk before a crash that it explains.
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
    this.next.info(this.write('info', args));
  }
  warn(...args: unknown[]) {
    this.next.warn(this.write('warn', args));
  }
  error(...args: unknown[]) {
    this.next.error(this.write('error', args));
  }

  /** Entries after `after` at `level` or above whose message contains `search`; the newest `limit` (or with `after`, the first `limit`). */
  read(q: { level?: LogLevel; after?: number; limit: number; search?: string }): { data: ServiceLogEntry[]; lastSeq: number; dropped: number } {
    const min = LOG_LEVELS.indexOf(q.level ?? 'info');
    const needle = q.search?.toLowerCase();
    const matches = (e: ServiceLogEntry) =>
      !needle || e.message.toLowerCase().includes(needle) || Object.values(e.fields ?? {}).some((v) => String(v).toLowerCase().includes(needle));
    const all = this.ring.filter((e) => e.seq > (q.after ?? 0) && LOG_LEVELS.indexOf(e.level) >= min && matches(e));
    const data = q.after ? all.slice(0, q.limit) : all.slice(-q.limit);
    // A full page after `after` resumes at its last entry; otherwise everything up to now was seen.
    const lastSeq = q.after && data.length === q.limit ? data[data.length - 1]!.seq : this.seq;
    return { data, lastSeq, dropped: Math.max(0, this.seq - RING_SIZE) };
  }

  /** Records one call; answers its human line for the wrapped logger. */
  private write(level: LogLevel, args: unknown[]): string {
    const { message, fields, shown } = entryOf(args);
    const entry: ServiceLogEntry = { seq: ++this.seq, at: new Date().toISOString(), level, message, ...(fields ? { fields } : {}) };
    this.ring.push(entry);
    if (this.ring.length > RING_SIZE) this.ring.splice(0, this.ring.length - RING_SIZE);
    this.append(entry);
    this.events.emit('entry', entry);
    return message + kv(shown);
  }

  private append(e: ServiceLogEntry) {
    if (this.fileBroken) return;
    const record: Record<string, unknown> = { at: e.at, level: e.level, msg: e.message };
    for (const [k, v] of Object.entries(e.fields ?? {})) record[RESERVED.has(k) ? `field_${k}` : k] = v;
    const line = `${JSON.stringify(record)}\n`;
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
