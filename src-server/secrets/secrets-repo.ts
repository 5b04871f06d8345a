import type { Db } from '../db/connection.js';
import type { SecretMeta } from '../contract/secrets.js';

/** The only SQL on `secrets`. Values are stored sealed (see util/crypto-box.ts). */
export class SecretsRepo {
  constructor(private db: Db) {}

  async meta(orgId: string, name: string): Promise<SecretMeta | undefined> {
    return (await this.db.get('SELECT name, created_at, updated_at FROM secrets WHERE org_id = ? AND name = ?', [orgId, name])) as SecretMeta | undefined;
  }

  async list(orgId: string, limit: number, offset: number): Promise<{ rows: SecretMeta[]; total: number }> {
    const rows = (await this.db.all('SELECT name, created_at, updated_at FROM secrets WHERE org_id = ? ORDER BY name LIMIT ? OFFSET ?', [
      orgId,
      limit,
      offset,
    ])) as SecretMeta[];
    const { n } = (await this.db.get('SELECT COUNT(*) AS n FROM secrets WHERE org_id = ?', [orgId])) as { n: number };
    return { rows, total: n };
  }

  async sealed(orgId: string, name: string): Promise<Buffer | undefined> {
    const r = (await this.db.get('SELECT ciphertext FROM secrets WHERE org_id = ? AND name = ?', [orgId, name])) as { ciphertext: Buffer } | undefined;
    return r?.ciphertext;
  }

  async upsert(orgId: string, name: string, ciphertext: Buffer, at: string): Promise<void> {
    await this.db.run(
      `INSERT INTO secrets (org_id, name, ciphertext, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (org_id, name) DO UPDATE SET ciphertext = excluded.ciphertext, updated_at = excluded.updated_at`,
      [orgId, name, ciphertext, at, at],
    );
  }

  async delete(orgId: string, name: string): Promise<void> {
    await this.db.run('DELETE FROM secrets WHERE org_id = ? AND name = ?', [orgId, name]);
  }
}
