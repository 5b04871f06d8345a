import type { Db } from '../db/connection.js';

/** What E2B's API knows of a sandbox beyond its box (the e2b_sandboxes table, migration 270). */
export interface SandboxRow {
  box_id: string;
  org_id: string;
  /** The key that created it: timeouts act for it. */
  key_id: string;
  template_id: string;
  metadata: Record<string, string>;
  envs: Record<string, string>;
  access_token: string;
  auto_pause: boolean;
  started_at: string;
  end_at: string;
  created_at: string;
}

type Raw = Omit<SandboxRow, 'metadata' | 'envs' | 'auto_pause'> & { metadata: string; envs: string; auto_pause: number };

const fromRaw = (r: Raw): SandboxRow => ({
  ...r,
  metadata: JSON.parse(r.metadata) as Record<string, string>,
  envs: JSON.parse(r.envs) as Record<string, string>,
  auto_pause: !!r.auto_pause,
});

export class SandboxesRepo {
  constructor(private db: Db) {}

  async insert(r: SandboxRow): Promise<void> {
    await this.db.run(
      `INSERT INTO e2b_sandboxes (box_id, org_id, key_id, template_id, metadata, envs, access_token, auto_pause, started_at, end_at, created_at)
         VALUES (@box_id, @org_id, @key_id, @template_id, @metadata, @envs, @access_token, @auto_pause, @started_at, @end_at, @created_at)`,
      { ...r, metadata: JSON.stringify(r.metadata), envs: JSON.stringify(r.envs), auto_pause: r.auto_pause ? 1 : 0 },
    );
  }

  async get(boxId: string): Promise<SandboxRow | undefined> {
    const r = (await this.db.get('SELECT * FROM e2b_sandboxes WHERE box_id = ?', [boxId])) as Raw | undefined;
    return r && fromRaw(r);
  }

  async byOrg(orgId: string): Promise<SandboxRow[]> {
    return ((await this.db.all('SELECT * FROM e2b_sandboxes WHERE org_id = ? ORDER BY started_at, box_id', [orgId])) as Raw[]).map(fromRaw);
  }

  async all(): Promise<SandboxRow[]> {
    return ((await this.db.all('SELECT * FROM e2b_sandboxes')) as Raw[]).map(fromRaw);
  }

  async setTimes(boxId: string, t: { started_at?: string; end_at: string }): Promise<void> {
    if (t.started_at) await this.db.run('UPDATE e2b_sandboxes SET started_at = ?, end_at = ? WHERE box_id = ?', [t.started_at, t.end_at, boxId]);
    else await this.db.run('UPDATE e2b_sandboxes SET end_at = ? WHERE box_id = ?', [t.end_at, boxId]);
  }

  async delete(boxId: string): Promise<void> {
    await this.db.run('DELETE FROM e2b_sandboxes WHERE box_id = ?', [boxId]);
  }
}
