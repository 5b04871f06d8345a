import { EventEmitter } from 'node:events';
import type { EgressLogEntry } from '../../contract/network.js';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../db/connection.js';

const COLS =
  'at, method, host, port, path, verdict, policy_id, rule_index, status, bytes_out, bytes_in, scheme, duration_ms, reason, injected_headers, upgraded_to_https';

type StoredRow = Omit<EgressLogEntry, 'injected_headers' | 'upgraded_to_https'> & { injected_headers: string | null; upgraded_to_https: number | null };

/** A stored row as the API shows it: the injected headers (names only) as a list, the upgrade as a flag. */
function entryOf(r: StoredRow): EgressLogEntry {
  return {
    ...r,
    injected_headers: r.injected_headers ? (JSON.parse(r.injected_headers) as EgressLogEntry['injected_headers']) : [],
    upgraded_to_https: r.upgraded_to_https === 1,
  };
}

/** Entries kept per box by default; older ones are pruned as new ones arrive. */
const DEFAULT_EGRESS_LOG_KEEP = 1000;

/** The egress log (what each box tried and the verdict) and each box's proxy port. */
export class EgressRepo {
  private sincePrune = new Map<string, number>();
  /** `entry:<box_id>` with each entry as it is written (a tunnel again when it closes): the live log's source. */
  readonly events = new EventEmitter().setMaxListeners(0);

  constructor(
    private db: Db,
    private keep = DEFAULT_EGRESS_LOG_KEEP,
  ) {}

  private queued: { boxId: string; e: EgressLogEntry }[] = [];
  private statements = new Map<string, Statement<unknown[]>>();
  /** Prepared once per SQL text (the NORMAL-sync connection has no statement cache of its own). */
  private sql(text: string) {
    let st = this.statements.get(text);
    if (!st) this.statements.set(text, (st = this.db.prepare<unknown[]>(text)));
    return st;
  }
  private flushTimer: NodeJS.Timeout | undefined;

  /**
   * Appends a finished request's entry off the request path: entries are written in one
   * transaction every 50 ms and streamed to live readers when written. Reads flush first.
   * The service gives this repository the NORMAL-sync connection (db/fast-connection.ts):
   * a log entry is worth no fsync, which stalled the proxy's event loop on every flush
   * (a few ms each, far more on a busy disk).
   */
  record(boxId: string, e: EgressLogEntry) {
    this.queued.push({ boxId, e });
    if (this.queued.length >= 500) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), 50).unref();
  }

  flush() {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = this.queued;
    if (!batch.length) return;
    this.queued = [];
    this.db.transaction(() => {
      for (const q of batch) this.add(q.boxId, q.e);
    })();
  }

  /** Appends an entry; returns its row id so a tunnel can record its byte counts when it closes. */
  add(boxId: string, e: EgressLogEntry): number {
    const id = Number(
      this.sql(
        `INSERT INTO egress_log (box_id, ${COLS})
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        boxId,
        e.at,
        e.method,
        e.host,
        e.port,
        e.path,
        e.verdict,
        e.policy_id,
        e.rule_index,
        e.status,
        e.bytes_out,
        e.bytes_in,
        e.scheme,
        e.duration_ms,
        e.reason,
        e.injected_headers?.length ? JSON.stringify(e.injected_headers) : null,
        e.upgraded_to_https ? 1 : null,
      ).lastInsertRowid,
    );
    this.maybePrune(boxId);
    this.events.emit(`entry:${boxId}`, { id, ...e, injected_headers: e.injected_headers ?? [], upgraded_to_https: e.upgraded_to_https ?? false });
    return id;
  }

  finish(id: number, fields: { status?: number | null; bytes_out: number; bytes_in: number; duration_ms?: number }) {
    this.sql('UPDATE egress_log SET status = COALESCE(?, status), bytes_out = ?, bytes_in = ?, duration_ms = COALESCE(?, duration_ms) WHERE id = ?').run(
      fields.status ?? null,
      fields.bytes_out,
      fields.bytes_in,
      fields.duration_ms ?? null,
      id,
    );
    const row = this.sql(`SELECT box_id, ${COLS} FROM egress_log WHERE id = ?`).get(id) as (StoredRow & { box_id: string }) | undefined;
    if (row) {
      const { box_id, ...e } = row;
      this.events.emit(`entry:${box_id}`, { id, ...entryOf(e) });
    }
  }

  /** Newest first, optionally only one verdict and/or one host. */
  page(
    boxId: string,
    limit: number,
    offset: number,
    f: { verdict?: string; host?: string } = {},
  ): { rows: (EgressLogEntry & { id: number })[]; total: number } {
    this.flush();
    const where = `box_id = ?${f.verdict ? ' AND verdict = ?' : ''}${f.host ? ' AND host = ?' : ''}`;
    const args = [boxId, ...(f.verdict ? [f.verdict] : []), ...(f.host ? [f.host.toLowerCase()] : [])];
    const rows = this.db
      .prepare(`SELECT id, ${COLS} FROM egress_log WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`)
      .all(...args, limit, offset)
      .map((r) => ({ ...entryOf(r as StoredRow), id: (r as { id: number }).id }));
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM egress_log WHERE ${where}`).get(...args) as { n: number }).n;
    return { rows, total };
  }

  /** Keeps the newest `keep` entries of a box; checked every tenth of `keep` inserts (and at least every 100). */
  private maybePrune(boxId: string) {
    const n = (this.sincePrune.get(boxId) ?? 0) + 1;
    if (n < Math.max(1, Math.min(100, Math.floor(this.keep / 10)))) {
      this.sincePrune.set(boxId, n);
      return;
    }
    this.sincePrune.set(boxId, 0);
    this.sql(
      `DELETE FROM egress_log WHERE box_id = ? AND id <= (
           SELECT id FROM egress_log WHERE box_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
    ).run(boxId, boxId, this.keep);
  }

  deleteBox(boxId: string) {
    this.flush();
    this.db.prepare('DELETE FROM egress_log WHERE box_id = ?').run(boxId);
    this.db.prepare('DELETE FROM egress_ports WHERE box_id = ?').run(boxId);
    this.sincePrune.delete(boxId);
  }

  port(boxId: string): number | undefined {
    return (this.db.prepare('SELECT port FROM egress_ports WHERE box_id = ?').get(boxId) as { port: number } | undefined)?.port;
  }

  ports(): { box_id: string; port: number }[] {
    return this.db.prepare('SELECT box_id, port FROM egress_ports').all() as { box_id: string; port: number }[];
  }

  setPort(boxId: string, port: number) {
    this.db.prepare('INSERT INTO egress_ports (box_id, port) VALUES (?, ?) ON CONFLICT(box_id) DO UPDATE SET port = excluded.port').run(boxId, port);
  }

  dropPort(boxId: string) {
    this.db.prepare('DELETE FROM egress_ports WHERE box_id = ?').run(boxId);
  }
}
