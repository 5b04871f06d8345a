import { randomBytes } from 'node:crypto';
import type { Db } from './connection.js';
import { hashSecret } from './keys-repo.js';

type SessionKind = 'link' | 'session';

/**
 * Browser sessions for the web UI, so the API key never appears in a URL:
 * a one-time login link (short-lived) is exchanged for an HttpOnly session cookie.
 */
export class SessionsRepo {
  constructor(private db: Db) {}

  async mint(keyId: string, kind: SessionKind, ttlMs: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    await this.db.run('INSERT INTO ui_sessions (token_hash, key_id, kind, created_at, expires_at) VALUES (?, ?, ?, ?, ?)', [
      hashSecret(token),
      keyId,
      kind,
      new Date(now).toISOString(),
      new Date(now + ttlMs).toISOString(),
    ]);
    return token;
  }

  /** Returns the key id for a live token; a link token is consumed by this call. */
  async redeem(token: string, kind: SessionKind): Promise<string | undefined> {
    const row = (await this.db.get('SELECT key_id, expires_at FROM ui_sessions WHERE token_hash = ? AND kind = ?', [hashSecret(token), kind])) as
      { key_id: string; expires_at: string } | undefined;
    if (!row || Date.parse(row.expires_at) < Date.now()) return undefined;
    if (kind === 'link') await this.db.run('DELETE FROM ui_sessions WHERE token_hash = ?', [hashSecret(token)]);
    return row.key_id;
  }

  async purgeExpired(): Promise<void> {
    await this.db.run('DELETE FROM ui_sessions WHERE expires_at < ?', [new Date().toISOString()]);
  }
}
