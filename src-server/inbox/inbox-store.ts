import type { Db } from '../db/connection.js';
import type { InboxDelivery } from '../contract/inbox.js';

/** Bounds (an unauthenticated sender can post to any inbox URL it learns). */
const MAX_DELIVERIES_PER_INBOX = 500;
/** Bytes of body kept per delivery; the rest is counted, not stored. */
export const MAX_KEPT_BODY_BYTES = 256 * 1024;
const MAX_INBOXES_PER_ORG = 50;
/** Bytes kept (bodies + headers) over all inboxes of an organization; the oldest deliveries go first. */
export const MAX_KEPT_BYTES_PER_ORG = 32 * 1024 * 1024;

export interface InboxRecord {
  inbox_id: string;
  orgId: string;
  respond_status: number;
  created_at: string;
}

interface InboxRow {
  inbox_id: string;
  org_id: string;
  respond_status: number;
  created_at: string;
}
interface DeliveryRow {
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

const toInbox = (r: InboxRow): InboxRecord => ({ inbox_id: r.inbox_id, orgId: r.org_id, respond_status: r.respond_status, created_at: r.created_at });
const toDelivery = (r: DeliveryRow): InboxDelivery => ({
  delivery_id: r.delivery_id,
  inbox_id: r.inbox_id,
  received_at: r.received_at,
  method: r.method,
  headers: JSON.parse(r.headers) as Record<string, string>,
  body: r.body.toString('utf8'),
  body_bytes: r.body_bytes,
  body_truncated: r.body_truncated === 1,
  answered_status: r.answered_status,
});

/**
 * Webhook inboxes in SQLite (they survive a restart), newest delivery first. Bounded per
 * inbox (count), per delivery (body bytes) and per organization (inboxes, total bytes),
 * the oldest dropped first, so whatever a sender posts the service's disk and memory stay
 * bounded.
 */
export class InboxStore {
  constructor(
    private db: Db,
    private maxKeptBytesPerOrg = MAX_KEPT_BYTES_PER_ORG,
  ) {}

  create(orgId: string, respondStatus: number): InboxRecord {
    const rec: InboxRecord = { inbox_id: `inbox_${crypto.randomUUID()}`, orgId, respond_status: respondStatus, created_at: new Date().toISOString() };
    this.db.transaction(() => {
      const extra = (this.db.prepare('SELECT COUNT(*) AS n FROM inboxes WHERE org_id = ?').get(orgId) as { n: number }).n - MAX_INBOXES_PER_ORG + 1;
      if (extra > 0) {
        this.db.prepare('DELETE FROM inboxes WHERE seq IN (SELECT seq FROM inboxes WHERE org_id = ? ORDER BY seq LIMIT ?)').run(orgId, extra);
      }
      this.db
        .prepare('INSERT INTO inboxes (inbox_id, org_id, respond_status, created_at) VALUES (?, ?, ?, ?)')
        .run(rec.inbox_id, orgId, respondStatus, rec.created_at);
    })();
    return rec;
  }

  get(inboxId: string): InboxRecord | undefined {
    const r = this.db.prepare('SELECT inbox_id, org_id, respond_status, created_at FROM inboxes WHERE inbox_id = ?').get(inboxId) as InboxRow | undefined;
    return r && toInbox(r);
  }

  listFor(orgId: string): InboxRecord[] {
    return (this.db.prepare('SELECT inbox_id, org_id, respond_status, created_at FROM inboxes WHERE org_id = ? ORDER BY seq').all(orgId) as InboxRow[]).map(
      toInbox,
    );
  }

  setStatus(inboxId: string, status: number): void {
    this.db.prepare('UPDATE inboxes SET respond_status = ? WHERE inbox_id = ?').run(status, inboxId);
  }

  deliveryCount(inboxId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM inbox_deliveries WHERE inbox_id = ?').get(inboxId) as { n: number }).n;
  }

  /** Stores one delivery (durably: it is on disk before the sender gets its answer), then trims. */
  record(rec: InboxRecord, d: { method: string; headers: Record<string, string>; body: Buffer; body_bytes: number }): InboxDelivery {
    const headers = JSON.stringify(d.headers);
    const row: DeliveryRow = {
      delivery_id: `dlv_${crypto.randomUUID()}`,
      inbox_id: rec.inbox_id,
      received_at: new Date().toISOString(),
      method: d.method,
      headers,
      body: d.body,
      body_bytes: d.body_bytes,
      body_truncated: d.body_bytes > d.body.length ? 1 : 0,
      answered_status: rec.respond_status,
    };
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO inbox_deliveries (delivery_id, inbox_id, org_id, received_at, method, headers, body, body_bytes, body_truncated, answered_status, kept_bytes)
           VALUES (@delivery_id, @inbox_id, @org_id, @received_at, @method, @headers, @body, @body_bytes, @body_truncated, @answered_status, @kept_bytes)`,
        )
        .run({ ...row, org_id: rec.orgId, kept_bytes: d.body.length + Buffer.byteLength(headers) });
      this.db
        .prepare(
          'DELETE FROM inbox_deliveries WHERE inbox_id = ? AND seq <= (SELECT seq FROM inbox_deliveries WHERE inbox_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)',
        )
        .run(rec.inbox_id, rec.inbox_id, MAX_DELIVERIES_PER_INBOX);
      this.trimOrg(rec.orgId);
    })();
    return toDelivery(row);
  }

  /** Drops the org's oldest deliveries until what is kept fits MAX_KEPT_BYTES_PER_ORG. */
  private trimOrg(orgId: string): void {
    let total = (this.db.prepare('SELECT COALESCE(SUM(kept_bytes), 0) AS n FROM inbox_deliveries WHERE org_id = ?').get(orgId) as { n: number }).n;
    if (total <= this.maxKeptBytesPerOrg) return;
    const oldest = this.db.prepare('SELECT seq, kept_bytes FROM inbox_deliveries WHERE org_id = ? ORDER BY seq').iterate(orgId) as Iterable<{
      seq: number;
      kept_bytes: number;
    }>;
    let cut = 0;
    for (const r of oldest) {
      total -= r.kept_bytes;
      cut = r.seq;
      if (total <= this.maxKeptBytesPerOrg) break;
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
