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

  async get(orgId: string, id: string): Promise<Volume | undefined> {
    const r = (await this.db.get('SELECT * FROM volumes WHERE org_id = ? AND id = ?', [orgId, id])) as Row | undefined;
    return r && toVolume(r);
  }

  async findReady(orgId: string, name: string): Promise<Volume | undefined> {
    const r = (await this.db.get("SELECT * FROM volumes WHERE org_id = ? AND name = ? AND status = 'ready'", [orgId, name])) as Row | undefined;
    return r && toVolume(r);
  }

  /** Inserts unless a live volume of that name exists (the partial unique index decides); true when inserted. */
  async insert(orgId: string, id: string, name: string, backend: string, at: string): Promise<boolean> {
    const r = await this.db.run(
      `INSERT INTO volumes (id, org_id, name, backend, status, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'ready', ?, ?) ON CONFLICT DO NOTHING`,
      [id, orgId, name, backend, at, at],
    );
    return r.changes === 1;
  }

  async listReady(orgId: string, limit: number, offset: number): Promise<{ rows: Volume[]; total: number }> {
    const rows = (await this.db.all("SELECT * FROM volumes WHERE org_id = ? AND status = 'ready' ORDER BY created_at, id LIMIT ? OFFSET ?", [
      orgId,
      limit,
      offset,
    ])) as Row[];
    const { n } = (await this.db.get("SELECT COUNT(*) AS n FROM volumes WHERE org_id = ? AND status = 'ready'", [orgId])) as { n: number };
    return { rows: rows.map(toVolume), total: n };
  }

  async markDeleted(orgId: string, id: string, at: string): Promise<void> {
    await this.db.run("UPDATE volumes SET status = 'deleted', updated_at = ? WHERE org_id = ? AND id = ? AND status = 'ready'", [at, orgId, id]);
  }
}
