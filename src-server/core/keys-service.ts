import type { ApiKey, CreateApiKeyBody } from '../contract/identity.js';
import type { ApiKeyRow, KeysRepo } from '../db/keys-repo.js';
import type { AuditLog } from './audit-log.js';
import { conflict, notFound } from './domain-errors.js';
import type { Principal } from './principal.js';

/** What a client sees of a key: never its secret hash nor its organization. */
const publicKey = (k: ApiKeyRow): ApiKey => ({
  id: k.id,
  name: k.name,
  scope: k.scope,
  user_id: k.user_id,
  prefix: k.prefix,
  created_at: k.created_at,
  last_used_at: k.last_used_at,
});

/** API keys of an organization: listing, creation (secret shown once) and revocation, audited. */
export class KeysService {
  constructor(
    private keys: KeysRepo,
    private audit: AuditLog,
  ) {}

  async list(orgId: string): Promise<ApiKey[]> {
    return (await this.keys.list(orgId)).map(publicKey);
  }

  async create(auth: Principal, body: CreateApiKeyBody): Promise<ApiKey & { secret: string }> {
    const { row, secret } = await this.keys.create(auth.orgId, body.name, body.scope);
    await this.audit.record(auth, 'api_key.create', row.id, { scope: row.scope });
    return { ...publicKey(row), secret };
  }

  /** Revokes a live key of the caller's organization; the last organization-scoped key stays (409). */
  async revoke(auth: Principal, keyId: string): Promise<ApiKey> {
    const key = await this.keys.get(keyId);
    if (!key || key.org_id !== auth.orgId || key.revoked_at) throw notFound(`No API key ${keyId}.`, null, 'key_id');
    if (key.scope === 'organization' && (await this.keys.countLiveOrgKeys(auth.orgId)) <= 1) {
      throw conflict('This is the last organization-scoped key; create another before revoking it.');
    }
    await this.keys.revoke(key.id);
    await this.audit.record(auth, 'api_key.revoke', key.id);
    return publicKey({ ...key, revoked_at: new Date().toISOString() });
  }
}
