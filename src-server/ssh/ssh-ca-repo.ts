import type { Db } from '../db/connection.js';

export interface CaRow {
  /** `sealed:v1:<base64>`: the OpenSSH private key sealed with the data dir's master key. */
  private_key: string;
  public_key: string;
}

/** The `ssh_cas` table (ssh area): one CA key pair per organization. */
export class SshCaRepo {
  constructor(private db: Db) {}

  async get(orgId: string): Promise<CaRow | undefined> {
    return (await this.db.get('SELECT private_key, public_key FROM ssh_cas WHERE org_id = ?', [orgId])) as CaRow | undefined;
  }

  /** Stores the org's CA unless one exists already (then the first one stays: re-read it). */
  async insertIfAbsent(orgId: string, row: CaRow): Promise<void> {
    await this.db.run('INSERT INTO ssh_cas (org_id, private_key, public_key, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (org_id) DO NOTHING', [
      orgId,
      row.private_key,
      row.public_key,
      new Date().toISOString(),
    ]);
  }
}
