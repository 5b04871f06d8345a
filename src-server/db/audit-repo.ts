import type { Db } from './connection.js';

interface AuditEntry {
  id: number;
  org_id: string;
  at: string;
  key_id: string | null;
  action: string;
  target: string | null;
  reason: string | null;
  details: Record<string, unknown> | null;
}

export class AuditRepo {
  constructor(private db: Db) {}

  async add(e: Omit<AuditEntry, 'id' | 'at'>): Promise<void> {
    await this.db.run('INSERT INTO audit_log (org_id, at, key_id, action, target, reason, details) VALUES (?, ?, ?, ?, ?, ?, ?)', [
      e.org_id,
      new Date().toISOString(),
      e.key_id,
      e.action,
      e.target,
      e.reason,
      e.details ? JSON.stringify(e.details) : null,
    ]);
  }

  async page(orgId: string, limit: number, offset: number): Promise<{ rows: AuditEntry[]; total: number }> {
    const rows = (
      (await this.db.all('SELECT * FROM audit_log WHERE org_id = ? ORDER BY id DESC LIMIT ? OFFSET ?', [orgId, limit, offset])) as (Omit<
        AuditEntry,
        'details'
      > & { details: string | null })[]
    ).map((r) => ({ ...r, details: r.details ? JSON.parse(r.details) : null }));
    const total = ((await this.db.get('SELECT COUNT(*) AS n FROM audit_log WHERE org_id = ?', [orgId])) as { n: number }).n;
    return { rows, total };
  }
}
