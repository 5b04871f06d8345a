import type { SecretMeta } from '../contract/secrets.js';
import { notFound } from '../core/domain-errors.js';
import type { CryptoBox } from '../util/crypto-box.js';
import type { SecretsRepo } from './secrets-repo.js';

/** A secret's value is bound to its organization and name (AEAD associated data). */
const aad = (orgId: string, name: string) => `${orgId}\0${name}`;

/**
 * Organization secrets, encrypted at rest. The API only ever shows their metadata; the
 * plaintext is for host-side use only (the egress proxy's header rewrites), never a box.
 */
export class SecretsService {
  constructor(
    private repo: SecretsRepo,
    /** Opened on first use (it reads or creates the data directory's key). */
    private cipher: () => CryptoBox,
  ) {}

  /** The plaintext, for host-side use only. */
  async resolve(orgId: string, name: string): Promise<string | undefined> {
    const blob = await this.repo.sealed(orgId, name);
    return blob && this.cipher().openString(blob, aad(orgId, name));
  }

  async list(orgId: string, limit: number, offset: number) {
    return await this.repo.list(orgId, limit, offset);
  }

  /** A secret's metadata; 404 naming `name` when there is none. */
  async meta(orgId: string, name: string): Promise<SecretMeta> {
    const m = await this.repo.meta(orgId, name);
    if (!m) throw notFound(`No secret named ${name}.`, null, 'name');
    return m;
  }

  /** Creates or replaces a secret's value; its creation date stays. */
  async put(orgId: string, name: string, value: string): Promise<SecretMeta> {
    const prior = await this.repo.meta(orgId, name);
    const at = new Date().toISOString();
    await this.repo.upsert(orgId, name, this.cipher().seal(value, aad(orgId, name)), at);
    return { name, created_at: prior?.created_at ?? at, updated_at: at };
  }

  /** Deletes a secret; answers its metadata (404 when there is none). */
  async delete(orgId: string, name: string): Promise<SecretMeta> {
    const m = await this.meta(orgId, name);
    await this.repo.delete(orgId, name);
    return m;
  }
}
