import type { Db } from '../db/connection.js';
import type { Volume } from '../contract/volumes.js';

interface Row {
  id: string;
  org_id: string;
  name: string;
  backend: string;
  status: 'ready' | 'deleted';
  created_at: string;
  updated_at: string;
}

const toVolume = (r: Row): Volume => ({
  volume_id: r.id,
  name: r.name,
  backend: r.backend,
  status: r.status,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** The only SQL on the `volumes` table. */
export class VolumesRepo {
  constructor(private db: Db) {}

  get(orgId: string, id: string): Volume | undefined {
    const r = this.db.prepare('SELECT * FROM volumes WHERE org_id = ? AND id = ?').get(orgId, id) as Row | undefined;
    return r && toVolume(r);
  }

  findReady(orgId: string, name: string): Volume | undefined {
    const r = this.db.prepare("SELECT * FROM volumes WHERE org_id = ? AND name = ? AND status = 'ready'").get(orgId, name) as Row | undefined;
    return r && toVolume(r);
  }

  /** Inserts unless a live volume of that name exists (the partial unique index decides); true when inserted. */
  insert(orgId: string, id: string, name: string, backend: string, at: string): boolean {
    const r = this.db
      .prepare(
        `INSERT INTO volumes (id, org_id, name, backend, status, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'ready', ?, ?) ON CONFLICT DO NOTHING`,
      )
      .run(id, orgId, name, backend, at, at);
    return r.changes === 1;
  }

  listReady(orgId: string, limit: number, offset: number): { rows: Volume[]; total: number } {
    const rows = this.db
      .prepare("SELECT * FROM volumes WHERE org_id = ? AND status = 'ready' ORDER BY created_at, id LIMIT ? OFFSET ?")
      .all(orgId, limit, offset) as Row[];
    const { n } = this.db.prepare("SELECT COUNT(*) AS n FROM volumes WHERE org_id = ? AND status = 'ready'").get(orgId) as { n: number };
    return { rows: rows.map(toVolume), total: n };
  }

  markDeleted(orgId: string, id: string, at: string): void {
    this.db.prepare("UPDATE volumes SET status = 'deleted', updated_at = ? WHERE org_id = ? AND id = ? AND status = 'ready'").run(at, orgId, id);
  }
}
