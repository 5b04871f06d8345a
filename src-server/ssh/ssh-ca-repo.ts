import type { Db } from '../db/connection.js';

export interface CaRow {
  /** `sealed:v1:<base64>`: the OpenSSH private key sealed with the data dir's master key. */
  private_key: string;
  public_key: string;
}

/** The `ssh_cas` table (ssh area): one CA key pair per organization. */
export class SshCaRepo {
  constructor(private db: Db) {}

  get(orgId: string): CaRow | undefined {
    return this.db.prepare('SELECT private_key, public_key FROM ssh_cas WHERE org_id = ?').get(orgId) as CaRow | undefined;
  }

  /** Stores the org's CA unless one exists already (then the first one stays: re-read it). */
  insertIfAbsent(orgId: string, row: CaRow): void {
    this.db
      .prepare('INSERT INTO ssh_cas (org_id, private_key, public_key, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (org_id) DO NOTHING')
      .run(orgId, row.private_key, row.public_key, new Date().toISOString());
  }
}
