import type { Db } from '../db/connection.js';
import type { InboxDelivery } from '../contract/inbox.js';
import { INTERNAL_HEADERS } from '../inference/ports.js';

export interface InboxRecord {
  inbox_id: string;
  orgId: string;
  respond_status: number;
  created_at: string;
  /** Whose own inbox it is (POST /v1/inbox/mine: the user of the key, else the key); null for one made by POST /v1/inbox. */
  owner?: string | null;
}

interface InboxRow {
  inbox_id: string;
  org_id: string;
  respond_status: number;
  created_at: string;
  owner: string | null;
}
export interface DeliveryRow {
  delivery_id: string;
  inbox_id: string;
  received_at: string;
  method: string;
  headers: string;
  body: Buffer;
  body_bytes: number;
  body_truncated: number;
  answered_status: number;
}

const toInbox = (r: InboxRow): InboxRecord => ({
  inbox_id: r.inbox_id,
  orgId: r.org_id,
  respond_status: r.respond_status,
  created_at: r.created_at,
  owner: r.owner,
});
const COLUMNS = 'inbox_id, org_id, respond_status, created_at, owner';
/**
 * Headers an inbox never keeps nor shows: the service's own credentials. A request that
 * reaches the service through a box's egress proxy carries the proxy's proof
 * (`x-box-gateway-auth`, `x-box-id`: INTERNAL_HEADERS), and a same-origin page's request the
 * UI session cookie; an inbox is readable by the whole organization (issue 38, item 10).
 */
const NEVER_KEPT = new Set<string>([...INTERNAL_HEADERS, 'cookie']);

/** The headers an inbox keeps (names are lower-case, as Node gives them). */
export const keptHeaders = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).filter(([k]) => !NEVER_KEPT.has(k.toLowerCase())));

export const toDelivery = (r: DeliveryRow): InboxDelivery => ({
  delivery_id: r.delivery_id,
  inbox_id: r.inbox_id,
  received_at: r.received_at,
  method: r.method,
  // kept before the filter existed: still never shown
  headers: keptHeaders(JSON.parse(r.headers) as Record<string, string>),
  body: r.body.toString('utf8'),
  body_bytes: r.body_bytes,
  body_truncated: r.body_truncated === 1,
  answered_status: r.answered_status,
});

/**
 * The only SQL on `inboxes` and `inbox_deliveries` (insertion order is `seq`). What to keep
 * is the service's rule (inbox/inbox-service.ts); the `trim*` methods carry it out.
 */
export class InboxRepo {
  constructor(private db: Db) {}

  /** Runs `fn` in one transaction (a write and its trims land together). */
  atomically<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  insert(rec: InboxRecord): void {
    this.db
      .prepare('INSERT INTO inboxes (inbox_id, org_id, respond_status, created_at, owner) VALUES (?, ?, ?, ?, ?)')
      .run(rec.inbox_id, rec.orgId, rec.respond_status, rec.created_at, rec.owner ?? null);
  }

  /** Drops the organization's oldest inboxes (and their deliveries) so at most `keep` remain. */
  trimInboxes(orgId: string, keep: number): void {
    const extra = (this.db.prepare('SELECT COUNT(*) AS n FROM inboxes WHERE org_id = ?').get(orgId) as { n: number }).n - keep;
    if (extra > 0) this.db.prepare('DELETE FROM inboxes WHERE seq IN (SELECT seq FROM inboxes WHERE org_id = ? ORDER BY seq LIMIT ?)').run(orgId, extra);
  }

  get(inboxId: string): InboxRecord | undefined {
    const r = this.db.prepare(`SELECT ${COLUMNS} FROM inboxes WHERE inbox_id = ?`).get(inboxId) as InboxRow | undefined;
    return r && toInbox(r);
  }

  /** The owner's newest inbox in the organization. */
  ownedBy(orgId: string, owner: string): InboxRecord | undefined {
    const r = this.db.prepare(`SELECT ${COLUMNS} FROM inboxes WHERE org_id = ? AND owner = ? ORDER BY seq DESC LIMIT 1`).get(orgId, owner) as
      InboxRow | undefined;
    return r && toInbox(r);
  }

  listFor(orgId: string): InboxRecord[] {
    return (this.db.prepare(`SELECT ${COLUMNS} FROM inboxes WHERE org_id = ? ORDER BY seq`).all(orgId) as InboxRow[]).map(toInbox);
  }

  setStatus(inboxId: string, status: number): void {
    this.db.prepare('UPDATE inboxes SET respond_status = ? WHERE inbox_id = ?').run(status, inboxId);
  }

  deliveryCount(inboxId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM inbox_deliveries WHERE inbox_id = ?').get(inboxId) as { n: number }).n;
  }

  insertDelivery(row: DeliveryRow, orgId: string, keptBytes: number): void {
    this.db
      .prepare(
        `INSERT INTO inbox_deliveries (delivery_id, inbox_id, org_id, received_at, method, headers, body, body_bytes, body_truncated, answered_status, kept_bytes)
         VALUES (@delivery_id, @inbox_id, @org_id, @received_at, @method, @headers, @body, @body_bytes, @body_truncated, @answered_status, @kept_bytes)`,
      )
      .run({ ...row, org_id: orgId, kept_bytes: keptBytes });
  }

  /** Drops the inbox's oldest deliveries so at most `keep` remain. */
  trimDeliveries(inboxId: string, keep: number): void {
    this.db
      .prepare(
        'DELETE FROM inbox_deliveries WHERE inbox_id = ? AND seq <= (SELECT seq FROM inbox_deliveries WHERE inbox_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)',
      )
      .run(inboxId, inboxId, keep);
  }

  /** Drops the organization's oldest deliveries until what is kept (bodies + headers) is at most `maxBytes`. */
  trimOrgBytes(orgId: string, maxBytes: number): void {
    let total = (this.db.prepare('SELECT COALESCE(SUM(kept_bytes), 0) AS n FROM inbox_deliveries WHERE org_id = ?').get(orgId) as { n: number }).n;
    if (total <= maxBytes) return;
    const oldest = this.db.prepare('SELECT seq, kept_bytes FROM inbox_deliveries WHERE org_id = ? ORDER BY seq').iterate(orgId) as Iterable<{
      seq: number;
      kept_bytes: number;
    }>;
    let cut = 0;
    for (const r of oldest) {
      total -= r.kept_bytes;
      cut = r.seq;
      if (total <= maxBytes) break;
    }
    this.db.prepare('DELETE FROM inbox_deliveries WHERE org_id = ? AND seq <= ?').run(orgId, cut);
  }

  /** A page of the org's deliveries (of one inbox, or all), newest first, and their total. */
  deliveries(orgId: string, inboxId: string | undefined, limit: number, offset: number): { rows: InboxDelivery[]; total: number } {
    const where = inboxId ? 'org_id = ? AND inbox_id = ?' : 'org_id = ?';
    const args = inboxId ? [orgId, inboxId] : [orgId];
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM inbox_deliveries WHERE ${where}`).get(...args) as { n: number }).n;
    const rows = this.db
      .prepare(
        `SELECT delivery_id, inbox_id, received_at, method, headers, body, body_bytes, body_truncated, answered_status FROM inbox_deliveries WHERE ${where} ORDER BY seq DESC LIMIT ? OFFSET ?`,
      )
      .all(...args, limit, offset) as DeliveryRow[];
    return { rows: rows.map(toDelivery), total };
  }
}
