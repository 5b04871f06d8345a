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

  add(e: Omit<AuditEntry, 'id' | 'at'>): void {
    this.db
      .prepare('INSERT INTO audit_log (org_id, at, key_id, action, target, reason, details) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(e.org_id, new Date().toISOString(), e.key_id, e.action, e.target, e.reason, e.details ? JSON.stringify(e.details) : null);
  }

  page(orgId: string, limit: number, offset: number): { rows: AuditEntry[]; total: number } {
    const rows = (
      this.db.prepare('SELECT * FROM audit_log WHERE org_id = ? ORDER BY id DESC LIMIT ? OFFSET ?').all(orgId, limit, offset) as (Omit<
        AuditEntry,
        'details'
      > & { details: string | null })[]
    ).map((r) => ({ ...r, details: r.details ? JSON.parse(r.details) : null }));
    const total = (this.db.prepare('SELECT COUNT(*) AS n FROM audit_log WHERE org_id = ?').get(orgId) as { n: number }).n;
    return { rows, total };
  }
}
