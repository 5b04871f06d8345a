import { EventEmitter } from 'node:events';
import type { EgressLogEntry } from '@box/contract/network';
import type { Db } from '../../../platform/db/connection.js';

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
  private flushTimer: NodeJS.Timeout | undefined;
  /** Writes in order, one at a time; the proxy never waits for them. */
  private writes: Promise<unknown> = Promise.resolve();
  private tickets = 0;
  /** Ticket (what `add` answers) → the row's id once inserted, for `finish`. */
  private rowIds = new Map<number, Promise<number | undefined>>();
  /** Where a failed log write is reported (the log is best effort: the proxy's answer does not wait for it). */
  onError: (e: unknown) => void = (e) => console.error('egress log: write failed', e);

  private queue<T>(fn: () => Promise<T>): Promise<T | undefined> {
    const p = this.writes.then(fn).catch((e: unknown) => {
      this.onError(e);
      return undefined;
    });
    this.writes = p;
    return p;
  }

  /**
   * Appends a finished request's entry off the request path: entries are written in one
   * transaction every 50 ms and streamed to live readers when written. Reads flush first.
   * The service gives this repository the NORMAL-sync connection (db/fast-connection.ts):
   * a log entry is worth no fsync, which stalled the proxy's event loop on every flush
   * (a few ms each, far more on a busy disk).
   */
  record(boxId: string, e: EgressLogEntry) {
    this.queued.push({ boxId, e });
    if (this.queued.length >= 500) void this.flush();
    else this.flushTimer ??= setTimeout(() => void this.flush(), 50).unref();
  }

  /** Writes the queued entries (and waits for every write before them). */
  async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = this.queued;
    this.queued = [];
    if (batch.length) {
      await this.queue(() =>
        this.db.transaction(async () => {
          for (const q of batch) await this.insert(q.boxId, q.e);
        }),
      );
    } else await this.writes;
  }

  /**
   * Appends an entry now (a tunnel's, whose byte counts come when it closes); answers a
   * ticket for `finish`. The write itself is queued: the proxy does not wait for the store.
   */
  add(boxId: string, e: EgressLogEntry): number {
    const ticket = ++this.tickets;
    this.rowIds.set(
      ticket,
      this.queue(() => this.insert(boxId, e)),
    );
    return ticket;
  }

  private async insert(boxId: string, e: EgressLogEntry): Promise<number> {
    const row = await this.db.get<{ id: number }>(
      `INSERT INTO egress_log (box_id, ${COLS})
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      [
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
      ],
    );
    const id = Number(row!.id);
    await this.maybePrune(boxId);
    this.events.emit(`entry:${boxId}`, { id, ...e, injected_headers: e.injected_headers ?? [], upgraded_to_https: e.upgraded_to_https ?? false });
    return id;
  }

  finish(ticket: number, fields: { status?: number | null; bytes_out: number; bytes_in: number; duration_ms?: number }) {
    const inserted = this.rowIds.get(ticket);
    this.rowIds.delete(ticket);
    if (!inserted) return;
    void this.queue(async () => {
      const id = await inserted;
      if (id === undefined) return;
      await this.db.run(
        'UPDATE egress_log SET status = COALESCE(?, status), bytes_out = ?, bytes_in = ?, duration_ms = COALESCE(?, duration_ms) WHERE id = ?',
        [fields.status ?? null, fields.bytes_out, fields.bytes_in, fields.duration_ms ?? null, id],
      );
      const row = await this.db.get<StoredRow & { box_id: string }>(`SELECT box_id, ${COLS} FROM egress_log WHERE id = ?`, [id]);
      if (row) {
        const { box_id, ...e } = row;
        this.events.emit(`entry:${box_id}`, { id, ...entryOf(e) });
      }
    });
  }

  /** Newest first, optionally only one verdict and/or one host. */
  async page(
    boxId: string,
    limit: number,
    offset: number,
    f: { verdict?: string; host?: string } = {},
  ): Promise<{ rows: (EgressLogEntry & { id: number })[]; total: number }> {
    await this.flush();
    const where = `box_id = ?${f.verdict ? ' AND verdict = ?' : ''}${f.host ? ' AND host = ?' : ''}`;
    const args = [boxId, ...(f.verdict ? [f.verdict] : []), ...(f.host ? [f.host.toLowerCase()] : [])];
    const rows = (
      await this.db.all<StoredRow & { id: number }>(`SELECT id, ${COLS} FROM egress_log WHERE ${where} ORDER BY id DESC LIMIT ? OFFSET ?`, [
        ...args,
        limit,
        offset,
      ])
    ).map((r) => ({ ...entryOf(r), id: r.id }));
    const total = ((await this.db.get(`SELECT COUNT(*) AS n FROM egress_log WHERE ${where}`, args)) as { n: number }).n;
    return { rows, total };
  }

  /** Keeps the newest `keep` entries of a box; checked every tenth of `keep` inserts (and at least every 100). */
  private async maybePrune(boxId: string) {
    const n = (this.sincePrune.get(boxId) ?? 0) + 1;
    if (n < Math.max(1, Math.min(100, Math.floor(this.keep / 10)))) {
      this.sincePrune.set(boxId, n);
      return;
    }
    this.sincePrune.set(boxId, 0);
    await this.db.run(
      `DELETE FROM egress_log WHERE box_id = ? AND id <= (
           SELECT id FROM egress_log WHERE box_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
      [boxId, boxId, this.keep],
    );
  }

  async deleteBox(boxId: string) {
    await this.flush();
    await this.db.run('DELETE FROM egress_log WHERE box_id = ?', [boxId]);
    await this.db.run('DELETE FROM egress_ports WHERE box_id = ?', [boxId]);
    this.sincePrune.delete(boxId);
  }

  async port(boxId: string): Promise<number | undefined> {
    return ((await this.db.get('SELECT port FROM egress_ports WHERE box_id = ?', [boxId])) as { port: number } | undefined)?.port;
  }

  async ports(): Promise<{ box_id: string; port: number }[]> {
    return (await this.db.all('SELECT box_id, port FROM egress_ports')) as { box_id: string; port: number }[];
  }

  /** The box's port: the one it already has (kept across restarts), else `port`, now recorded. One statement. */
  async claimPort(boxId: string, port: number): Promise<number> {
    const row = (await this.db.get(
      'INSERT INTO egress_ports (box_id, port) VALUES (?, ?) ON CONFLICT(box_id) DO UPDATE SET port = egress_ports.port RETURNING port',
      [boxId, port],
    )) as { port: number };
    return row.port;
  }

  async dropPort(boxId: string) {
    await this.db.run('DELETE FROM egress_ports WHERE box_id = ?', [boxId]);
  }
}
