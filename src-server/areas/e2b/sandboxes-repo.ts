import type { Db } from '../../platform/db/connection.js';

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
  /** The HTTP policy made for its network rules (null: none, Box's default applies). */
  policy_id: string | null;
  /** false: its pause at timeout keeps only the filesystem (E2B's `lifecycle.keepMemory: false`). */
  keep_memory: boolean;
  /** Its current pause kept only the filesystem: resume reboots it. */
  cold_resume: boolean;
  /** Traffic to a paused sandbox resumes it (E2B's `lifecycle.autoResume`). */
  auto_resume: boolean;
  /** The timeout it was created with, in seconds: what an automatic resume gives it. */
  timeout_s: number;
  /** Its getHost addresses answer anyone (E2B's `network.allowPublicTraffic`, default true); false: only requests with its traffic access token. */
  public_traffic: boolean;
  /** The Host header its servers get for requests to its getHost addresses, `${PORT}` the port (E2B's `network.maskRequestHost`); null: the request's. */
  mask_request_host: string | null;
}

type Flags = 'auto_pause' | 'keep_memory' | 'auto_resume' | 'cold_resume' | 'public_traffic';
type Raw = Omit<SandboxRow, 'metadata' | 'envs' | Flags> & { metadata: string; envs: string } & Record<Flags, number>;

const fromRaw = (r: Raw): SandboxRow => ({
  ...r,
  metadata: JSON.parse(r.metadata) as Record<string, string>,
  envs: JSON.parse(r.envs) as Record<string, string>,
  auto_pause: !!r.auto_pause,
  keep_memory: !!r.keep_memory,
  auto_resume: !!r.auto_resume,
  cold_resume: !!r.cold_resume,
  public_traffic: !!r.public_traffic,
});

export class SandboxesRepo {
  constructor(private db: Db) {}

  async insert(r: SandboxRow): Promise<void> {
    await this.db.run(
      `INSERT INTO e2b_sandboxes (box_id, org_id, key_id, template_id, metadata, envs, access_token, auto_pause, started_at, end_at, created_at,
         policy_id, keep_memory, auto_resume, timeout_s, cold_resume, public_traffic, mask_request_host)
       VALUES (@box_id, @org_id, @key_id, @template_id, @metadata, @envs, @access_token, @auto_pause, @started_at, @end_at, @created_at,
         @policy_id, @keep_memory, @auto_resume, @timeout_s, @cold_resume, @public_traffic, @mask_request_host)`,
      {
        ...r,
        metadata: JSON.stringify(r.metadata),
        envs: JSON.stringify(r.envs),
        auto_pause: r.auto_pause ? 1 : 0,
        keep_memory: r.keep_memory ? 1 : 0,
        auto_resume: r.auto_resume ? 1 : 0,
        cold_resume: r.cold_resume ? 1 : 0,
        public_traffic: r.public_traffic ? 1 : 0,
      },
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

  async setPolicy(boxId: string, policyId: string | null): Promise<void> {
    await this.db.run('UPDATE e2b_sandboxes SET policy_id = ? WHERE box_id = ?', [policyId, boxId]);
  }

  /** Whether its current pause kept only the filesystem (set at pause, cleared at resume). */
  async setColdResume(boxId: string, cold: boolean): Promise<void> {
    await this.db.run('UPDATE e2b_sandboxes SET cold_resume = ? WHERE box_id = ?', [cold ? 1 : 0, boxId]);
  }

  async delete(boxId: string): Promise<void> {
    await this.db.run('DELETE FROM e2b_sandboxes WHERE box_id = ?', [boxId]);
  }
}
