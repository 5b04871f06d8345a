import type { Db } from '../db/connection.js';
import type { SecretMeta } from '../contract/secrets.js';

/** The only SQL on `secrets`. Values are stored sealed (see util/crypto-box.ts). */
export class SecretsRepo {
  constructor(private db: Db) {}

  meta(orgId: string, name: string): SecretMeta | undefined {
    return this.db.prepare('SELECT name, created_at, updated_at FROM secrets WHERE org_id = ? AND name = ?').get(orgId, name) as SecretMeta | undefined;
  }

  list(orgId: string, limit: number, offset: number): { rows: SecretMeta[]; total: number } {
    const rows = this.db
      .prepare('SELECT name, created_at, updated_at FROM secrets WHERE org_id = ? ORDER BY name LIMIT ? OFFSET ?')
      .all(orgId, limit, offset) as SecretMeta[];
    const { n } = this.db.prepare('SELECT COUNT(*) AS n FROM secrets WHERE org_id = ?').get(orgId) as { n: number };
    return { rows, total: n };
  }

  sealed(orgId: string, name: string): Buffer | undefined {
    const r = this.db.prepare('SELECT ciphertext FROM secrets WHERE org_id = ? AND name = ?').get(orgId, name) as { ciphertext: Buffer } | undefined;
    return r?.ciphertext;
  }

  upsert(orgId: string, name: string, ciphertext: Buffer, at: string): void {
    this.db
      .prepare(
        `INSERT INTO secrets (org_id, name, ciphertext, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (org_id, name) DO UPDATE SET ciphertext = excluded.ciphertext, updated_at = excluded.updated_at`,
      )
      .run(orgId, name, ciphertext, at, at);
  }

  delete(orgId: string, name: string): void {
    this.db.prepare('DELETE FROM secrets WHERE org_id = ? AND name = ?').run(orgId, name);
  }
}
