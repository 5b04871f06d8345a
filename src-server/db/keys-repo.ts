import { createHash, randomBytes } from 'node:crypto';
import type { Db } from './connection.js';

type KeyScope = 'organization' | 'user';

export interface ApiKeyRow {
  id: string;
  org_id: string;
  name: string;
  scope: KeyScope;
  user_id: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** Secrets are random, high-entropy tokens: a SHA-256 at rest is enough (no password stretching needed). */
const mintSecret = () => `bxk_${randomBytes(30).toString('base64url')}`;

const PUBLIC_COLS = 'id, org_id, name, scope, user_id, prefix, created_at, last_used_at, revoked_at';

/** How long a resolved key is trusted without asking the database again (revocation here drops it at once). */
const KEY_CACHE_MS = 5_000;
const KEY_CACHE_MAX = 1_000;

export class KeysRepo {
  /**
   * Live keys by secret hash, for the per-request lookup (every API call authenticates).
   * Only hits are kept (a stream of wrong secrets cannot grow it); `revoke` drops the key
   * at once; entries expire after KEY_CACHE_MS as a bound on staleness for writes that do
   * not pass through this repository.
   */
  private live = new Map<string, { row: ApiKeyRow; until: number }>();

  constructor(private db: Db) {}

  async create(orgId: string, name: string, scope: KeyScope, secret = mintSecret(), userId: string | null = null) {
    const row: ApiKeyRow = {
      id: `key_${crypto.randomUUID()}`,
      org_id: orgId,
      name,
      scope,
      user_id: scope === 'user' ? (userId ?? `user_${crypto.randomUUID()}`) : null,
      prefix: secret.slice(0, 8),
      created_at: new Date().toISOString(),
      last_used_at: null,
      revoked_at: null,
    };
    await this.db.run(
      `INSERT INTO api_keys (id, org_id, name, scope, user_id, secret_hash, prefix, created_at)
         VALUES (@id, @org_id, @name, @scope, @user_id, @secret_hash, @prefix, @created_at)`,
      { ...row, secret_hash: hashSecret(secret) },
    );
    return { row, secret };
  }

  /** Finds the live key for a secret; undefined when unknown or revoked. */
  async findBySecret(secret: string, now = Date.now()): Promise<ApiKeyRow | undefined> {
    const hash = hashSecret(secret);
    const hit = this.live.get(hash);
    if (hit && hit.until > now) return hit.row;
    const row = (await this.db.get(`SELECT ${PUBLIC_COLS} FROM api_keys WHERE secret_hash = ? AND revoked_at IS NULL`, [hash])) as ApiKeyRow | undefined;
    if (!row) {
      this.live.delete(hash);
      return undefined;
    }
    if (this.live.size >= KEY_CACHE_MAX) this.live.clear();
    this.live.set(hash, { row, until: now + KEY_CACHE_MS });
    return row;
  }

  async hasSecret(secret: string): Promise<boolean> {
    return (await this.db.get('SELECT 1 FROM api_keys WHERE secret_hash = ?', [hashSecret(secret)])) !== undefined;
  }

  async get(id: string): Promise<ApiKeyRow | undefined> {
    return (await this.db.get(`SELECT ${PUBLIC_COLS} FROM api_keys WHERE id = ?`, [id])) as ApiKeyRow | undefined;
  }

  async list(orgId: string): Promise<ApiKeyRow[]> {
    return (await this.db.all(`SELECT ${PUBLIC_COLS} FROM api_keys WHERE org_id = ? AND revoked_at IS NULL ORDER BY created_at`, [orgId])) as ApiKeyRow[];
  }

  async countLiveOrgKeys(orgId: string): Promise<number> {
    return (
      (await this.db.get("SELECT COUNT(*) AS n FROM api_keys WHERE org_id = ? AND scope = 'organization' AND revoked_at IS NULL", [orgId])) as { n: number }
    ).n;
  }

  async revoke(id: string): Promise<void> {
    await this.db.run('UPDATE api_keys SET revoked_at = ? WHERE id = ?', [new Date().toISOString(), id]);
    for (const [hash, e] of this.live) if (e.row.id === id) this.live.delete(hash);
  }

  private touched = new Map<string, number>();

  /** Records use of a key, at most once a minute per key (a synced write per request would cost). */
  async touch(id: string, now = Date.now()): Promise<void> {
    if (now - (this.touched.get(id) ?? 0) < 60_000) return;
    this.touched.set(id, now);
    await this.db.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', [new Date(now).toISOString(), id]);
  }
}
