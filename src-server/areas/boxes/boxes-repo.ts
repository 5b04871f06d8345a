import type { Box, BoxStatus, Checkpoint } from '@box/contract/boxes';
import type { Db } from '../../platform/db/connection.js';
import { TRANSITIONS } from '@box/contract/transitions';
import { assertTransition } from './transitions.js';

interface BoxRow extends Omit<Box, 'box_id' | 'ingress_ports' | 'ingress_urls' | 'volume_mounts' | 'auto_sleep' | 'last_start'> {
  id: string;
  last_start: string | null;
  org_id: string;
  ingress_ports: string;
  volume_mounts: string;
  auto_sleep: string;
  last_activity_at: string | null;
}

/** A box as stored; `ingress_urls` is derived when it is shown (box-view.ts). */
export interface BoxRecord extends Omit<Box, 'ingress_urls'> {
  org_id: string;
  last_activity_at: string | null;
}

const fromRow = (r: BoxRow): BoxRecord => {
  const { id, ingress_ports, volume_mounts, auto_sleep, last_start, ...rest } = r;
  return {
    box_id: id,
    ...rest,
    ingress_ports: JSON.parse(ingress_ports),
    volume_mounts: JSON.parse(volume_mounts),
    auto_sleep: JSON.parse(auto_sleep),
    last_start: last_start ? JSON.parse(last_start) : null,
  };
};

export class BoxesRepo {
  /** Told of every status change (the service log records each with its reason). */
  onStatus?: (box: BoxRecord, from: BoxStatus, reason: string | null) => void;
  constructor(private db: Db) {}

  /**
   * Stores a new box; false (nothing stored) when a live box of its organization has its name
   * (the partial unique index boxes_live_name decides: one statement, no check-then-insert race).
   */
  async insert(b: BoxRecord): Promise<boolean> {
    const r = await this.db.run(
      `INSERT INTO boxes (id, org_id, app_id, name, image, status, error_message, visibility, created_by_key_id,
           vcpu_count, memory_mib, disk_gib, ingress_ports, volume_mounts, http_policy_id, auto_sleep, inference_budget_tokens, wake_at,
           checkpoint_generation, last_checkpointed_at, on_checkpoint_id, last_activity_at, created_at, started_at, updated_at)
         VALUES (@box_id, @org_id, @app_id, @name, @image, @status, @error_message, @visibility, @created_by_key_id,
           @vcpu_count, @memory_mib, @disk_gib, @ingress_ports, @volume_mounts, @http_policy_id, @auto_sleep, @inference_budget_tokens, @wake_at,
           @checkpoint_generation, @last_checkpointed_at, @on_checkpoint_id, @last_activity_at, @created_at, @started_at, @updated_at)
         ON CONFLICT (org_id, name) WHERE status NOT IN ('terminated') DO NOTHING`,
      {
        ...b,
        ingress_ports: JSON.stringify(b.ingress_ports),
        volume_mounts: JSON.stringify(b.volume_mounts),
        auto_sleep: JSON.stringify(b.auto_sleep),
        inference_budget_tokens: b.inference_budget_tokens ?? null,
        last_start: undefined,
      },
    );
    return r.changes === 1;
  }

  async get(id: string): Promise<BoxRecord | undefined> {
    const r = (await this.db.get('SELECT * FROM boxes WHERE id = ?', [id])) as BoxRow | undefined;
    return r && fromRow(r);
  }

  async nameTaken(orgId: string, name: string): Promise<boolean> {
    return (await this.db.get("SELECT 1 FROM boxes WHERE org_id = ? AND name = ? AND status != 'terminated'", [orgId, name])) !== undefined;
  }

  async list(orgId: string, q: { app_id?: string; status?: string; search?: string; limit: number; offset: number }) {
    const where = ['org_id = @orgId'];
    if (q.app_id) where.push('app_id = @app_id');
    if (q.status) where.push('status = @status');
    else where.push("status != 'terminated'");
    if (q.search) where.push("(name LIKE @like ESCAPE '\\' OR id LIKE @like ESCAPE '\\')");
    const args = { orgId, ...q, like: `%${(q.search ?? '').replace(/[%_\\]/g, (c) => `\\${c}`)}%` };
    const rows = (await this.db.all(`SELECT * FROM boxes WHERE ${where.join(' AND ')} ORDER BY created_at, id LIMIT @limit OFFSET @offset`, args)) as BoxRow[];
    const total = ((await this.db.get(`SELECT COUNT(*) AS n FROM boxes WHERE ${where.join(' AND ')}`, args)) as { n: number }).n;
    return { rows: rows.map(fromRow), total };
  }

  /** Boxes the service must look after on start (anything not finished). */
  async live(): Promise<BoxRecord[]> {
    return ((await this.db.all("SELECT * FROM boxes WHERE status != 'terminated'")) as BoxRow[]).map(fromRow);
  }

  /**
   * Moves a box to `to` (a transition transitions.ts allows) and returns it as stored. `from`:
   * the status the caller read under the box's lock; then one statement does it (an UPDATE
   * on that status), else the box is read first.
   */
  async setStatus(
    id: string,
    to: BoxStatus,
    extra: { error_message?: string | null; started_at?: string; last_start?: Box['last_start'] } = {},
    from?: BoxStatus,
  ): Promise<BoxRecord> {
    const errorMessage = extra.error_message !== undefined ? extra.error_message : to === 'running' ? null : undefined;
    // `from` may be stale (a caller that changed the status since): then the UPDATE matches nothing, and the box is read
    if (from !== undefined && errorMessage !== undefined && TRANSITIONS[from].includes(to)) {
      const row = await this.updateStatus(id, to, errorMessage, extra, from);
      if (row) return this.changed(row, from, extra);
    }
    const cur = await this.get(id);
    if (!cur) throw new Error(`no box ${id}`);
    assertTransition(cur.status, to);
    const row = await this.updateStatus(id, to, errorMessage === undefined ? cur.error_message : errorMessage, extra);
    if (!row) throw new Error(`no box ${id}`);
    return this.changed(row, cur.status, extra);
  }

  private async updateStatus(
    id: string,
    to: BoxStatus,
    errorMessage: string | null,
    extra: { started_at?: string; last_start?: Box['last_start'] },
    from?: BoxStatus,
  ) {
    return (await this.db.get(
      `UPDATE boxes SET status = ?, error_message = ?, started_at = COALESCE(?, started_at), last_start = COALESCE(?, last_start), updated_at = ?
         WHERE id = ?${from === undefined ? '' : ' AND status = ?'} RETURNING *`,
      [
        to,
        errorMessage,
        extra.started_at ?? null,
        extra.last_start ? JSON.stringify(extra.last_start) : null,
        new Date().toISOString(),
        id,
        ...(from === undefined ? [] : [from]),
      ],
    )) as BoxRow | undefined;
  }

  private changed(row: BoxRow, from: BoxStatus, extra: { error_message?: string | null }): BoxRecord {
    const after = fromRow(row);
    if (from !== after.status) this.onStatus?.(after, from, extra.error_message ?? null);
    return after;
  }

  async update(
    id: string,
    fields: Partial<
      Pick<
        BoxRecord,
        | 'wake_at'
        | 'error_message'
        | 'http_policy_id'
        | 'inference_budget_tokens'
        | 'last_activity_at'
        | 'checkpoint_generation'
        | 'last_checkpointed_at'
        | 'on_checkpoint_id'
      >
    > & { auto_sleep?: Box['auto_sleep'] },
  ): Promise<void> {
    const sets: string[] = [];
    const args: Record<string, unknown> = { id, updated_at: new Date().toISOString() };
    for (const [k, v] of Object.entries(fields)) {
      sets.push(`${k} = @${k}`);
      args[k] = k === 'auto_sleep' ? JSON.stringify(v) : v;
    }
    if (!sets.length) return;
    const touchUpdated = Object.keys(fields).some((k) => k !== 'last_activity_at');
    await this.db.run(`UPDATE boxes SET ${sets.join(', ')}${touchUpdated ? ', updated_at = @updated_at' : ''} WHERE id = @id`, args);
  }

  /** Deletes terminated boxes last changed before `before` (ISO time); returns how many. */
  async purgeTerminated(before: string): Promise<number> {
    return (await this.db.run("DELETE FROM boxes WHERE status = 'terminated' AND updated_at < ?", [before])).changes;
  }

  /** Live boxes with this HTTP policy attached. */
  async withPolicy(orgId: string, policyId: string): Promise<string[]> {
    return (
      (await this.db.all("SELECT id FROM boxes WHERE org_id = ? AND http_policy_id = ? AND status != 'terminated'", [orgId, policyId])) as { id: string }[]
    ).map((r) => r.id);
  }

  /** Terminated boxes that still name a policy let go of it (so the policy can be deleted). */
  async releasePolicy(orgId: string, policyId: string): Promise<void> {
    await this.db.run("UPDATE boxes SET http_policy_id = NULL WHERE org_id = ? AND http_policy_id = ? AND status = 'terminated'", [orgId, policyId]);
  }

  // Checkpoints
  async insertCheckpoint(c: Checkpoint & { org_id: string }): Promise<void> {
    await this.db.run(
      `INSERT INTO checkpoints (id, org_id, box_id, app_id, name, generation, status, size_bytes, created_at, expires_at)
         VALUES (@checkpoint_id, @org_id, @box_id, @app_id, @name, @checkpoint_generation, @status, @size_bytes, @created_at, @expires_at)`,
      c,
    );
  }

  async finishCheckpoint(id: string, status: Checkpoint['status'], sizeBytes: number): Promise<void> {
    await this.db.run('UPDATE checkpoints SET status = ?, size_bytes = ? WHERE id = ?', [status, sizeBytes, id]);
  }

  async getCheckpoint(id: string): Promise<(Checkpoint & { org_id: string }) | undefined> {
    const r = (await this.db.get('SELECT * FROM checkpoints WHERE id = ?', [id])) as Record<string, unknown> | undefined;
    return r && cpFromRow(r);
  }

  async listCheckpoints(orgId: string, q: { box_id?: string; app_id?: string; name?: string }) {
    const where = ['org_id = @orgId'];
    for (const k of ['box_id', 'app_id', 'name'] as const) if (q[k]) where.push(`${k} = @${k}`);
    return (
      (await this.db.all(`SELECT * FROM checkpoints WHERE ${where.join(' AND ')} ORDER BY created_at`, { orgId, ...q })) as Record<string, unknown>[]
    ).map(cpFromRow);
  }

  /** The boxes that stood on it stand on no checkpoint any more (`on_checkpoint_id` names only existing ones). */
  async deleteCheckpoint(id: string): Promise<void> {
    await this.db.run('DELETE FROM checkpoints WHERE id = ?', [id]);
    await this.db.run('UPDATE boxes SET on_checkpoint_id = NULL WHERE on_checkpoint_id = ?', [id]);
  }

  async expiredCheckpoints(now: string): Promise<string[]> {
    return ((await this.db.all('SELECT id FROM checkpoints WHERE expires_at IS NOT NULL AND expires_at < ?', [now])) as { id: string }[]).map((r) => r.id);
  }

  async recordFork(boxId: string, parent: string | null, checkpointId: string | null): Promise<void> {
    await this.db.run(
      'INSERT INTO box_forks (box_id, parent_box_id, checkpoint_id) VALUES (?, ?, ?) ON CONFLICT (box_id) DO UPDATE SET parent_box_id = excluded.parent_box_id, checkpoint_id = excluded.checkpoint_id',
      [boxId, parent, checkpointId],
    );
  }

  async lineage(orgId: string): Promise<{ box_id: string; parent_box_id: string | null; checkpoint_id: string | null }[]> {
    return (await this.db.all('SELECT f.* FROM box_forks f JOIN boxes b ON b.id = f.box_id WHERE b.org_id = ?', [orgId])) as {
      box_id: string;
      parent_box_id: string | null;
      checkpoint_id: string | null;
    }[];
  }
}

const cpFromRow = (r: Record<string, unknown>): Checkpoint & { org_id: string } => ({
  checkpoint_id: r.id as string,
  org_id: r.org_id as string,
  box_id: r.box_id as string,
  app_id: r.app_id as string,
  name: (r.name as string) ?? null,
  checkpoint_generation: r.generation as number,
  status: r.status as Checkpoint['status'],
  size_bytes: r.size_bytes as number,
  created_at: r.created_at as string,
  expires_at: (r.expires_at as string) ?? null,
});
