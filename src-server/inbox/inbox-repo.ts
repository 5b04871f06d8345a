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
  atomically<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  async insert(rec: InboxRecord): Promise<void> {
    await this.db.run('INSERT INTO inboxes (inbox_id, org_id, respond_status, created_at, owner) VALUES (?, ?, ?, ?, ?)', [
      rec.inbox_id,
      rec.orgId,
      rec.respond_status,
      rec.created_at,
      rec.owner ?? null,
    ]);
  }

  /** Drops the organization's oldest inboxes (and their deliveries) so at most `keep` remain. */
  async trimInboxes(orgId: string, keep: number): Promise<void> {
    const extra = ((await this.db.get('SELECT COUNT(*) AS n FROM inboxes WHERE org_id = ?', [orgId])) as { n: number }).n - keep;
    if (extra > 0) await this.db.run('DELETE FROM inboxes WHERE seq IN (SELECT seq FROM inboxes WHERE org_id = ? ORDER BY seq LIMIT ?)', [orgId, extra]);
  }

  async get(inboxId: string): Promise<InboxRecord | undefined> {
    const r = (await this.db.get(`SELECT ${COLUMNS} FROM inboxes WHERE inbox_id = ?`, [inboxId])) as InboxRow | undefined;
    return r && toInbox(r);
  }

  /** The owner's newest inbox in the organization. */
  async ownedBy(orgId: string, owner: string): Promise<InboxRecord | undefined> {
    const r = (await this.db.get(`SELECT ${COLUMNS} FROM inboxes WHERE org_id = ? AND owner = ? ORDER BY seq DESC LIMIT 1`, [orgId, owner])) as
      InboxRow | undefined;
    return r && toInbox(r);
  }

  async listFor(orgId: string): Promise<InboxRecord[]> {
    return ((await this.db.all(`SELECT ${COLUMNS} FROM inboxes WHERE org_id = ? ORDER BY seq`, [orgId])) as InboxRow[]).map(toInbox);
  }

  async setStatus(inboxId: string, status: number): Promise<void> {
    await this.db.run('UPDATE inboxes SET respond_status = ? WHERE inbox_id = ?', [status, inboxId]);
  }

  async deliveryCount(inboxId: string): Promise<number> {
    return ((await this.db.get('SELECT COUNT(*) AS n FROM inbox_deliveries WHERE inbox_id = ?', [inboxId])) as { n: number }).n;
  }

  async insertDelivery(row: DeliveryRow, orgId: string, keptBytes: number): Promise<void> {
    await this.db.run(
      `INSERT INTO inbox_deliveries (delivery_id, inbox_id, org_id, received_at, method, headers, body, body_bytes, body_truncated, answered_status, kept_bytes)
         VALUES (@delivery_id, @inbox_id, @org_id, @received_at, @method, @headers, @body, @body_bytes, @body_truncated, @answered_status, @kept_bytes)`,
      { ...row, org_id: orgId, kept_bytes: keptBytes },
    );
  }

  /** Drops the inbox's oldest deliveries so at most `keep` remain. */
  async trimDeliveries(inboxId: string, keep: number): Promise<void> {
    await this.db.run(
      'DELETE FROM inbox_deliveries WHERE inbox_id = ? AND seq <= (SELECT seq FROM inbox_deliveries WHERE inbox_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)',
      [inboxId, inboxId, keep],
    );
  }

  /** Drops the organization's oldest deliveries until what is kept (bodies + headers) is at most `maxBytes`. */
  async trimOrgBytes(orgId: string, maxBytes: number): Promise<void> {
    let total = ((await this.db.get('SELECT COALESCE(SUM(kept_bytes), 0) AS n FROM inbox_deliveries WHERE org_id = ?', [orgId])) as { n: number }).n;
    if (total <= maxBytes) return;
    const oldest = await this.db.all<{ seq: number; kept_bytes: number }>('SELECT seq, kept_bytes FROM inbox_deliveries WHERE org_id = ? ORDER BY seq', [
      orgId,
    ]);
    let cut = 0;
    for (const r of oldest) {
      total -= r.kept_bytes;
      cut = r.seq;
      if (total <= maxBytes) break;
    }
    await this.db.run('DELETE FROM inbox_deliveries WHERE org_id = ? AND seq <= ?', [orgId, cut]);
  }

  /** A page of the org's deliveries (of one inbox, or all), newest first, and their total. */
  async deliveries(orgId: string, inboxId: string | undefined, limit: number, offset: number): Promise<{ rows: InboxDelivery[]; total: number }> {
    const where = inboxId ? 'org_id = ? AND inbox_id = ?' : 'org_id = ?';
    const args = inboxId ? [orgId, inboxId] : [orgId];
    const total = ((await this.db.get(`SELECT COUNT(*) AS n FROM inbox_deliveries WHERE ${where}`, args)) as { n: number }).n;
    const rows = (await this.db.all(
      `SELECT delivery_id, inbox_id, received_at, method, headers, body, body_bytes, body_truncated, answered_status FROM inbox_deliveries WHERE ${where} ORDER BY seq DESC LIMIT ? OFFSET ?`,
      [...args, limit, offset],
    )) as DeliveryRow[];
    return { rows: rows.map(toDelivery), total };
  }
}
