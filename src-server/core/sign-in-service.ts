import type { KeysRepo } from '../db/keys-repo.js';
import type { SessionsRepo } from '../db/sessions-repo.js';

const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
/** A one-time login link is good for this long (printed with the link). */
export const LOGIN_LINK_TTL_MS = 10 * 60 * 1000;

/**
 * Web UI sign-in (core/sign-in-routes.ts): one-time login links, exchanged for a session
 * whose token goes in an HttpOnly cookie, so an API key never appears in a URL.
 */
export class SignInService {
  readonly sessionTtlMs = SESSION_TTL_MS;

  constructor(
    private keys: KeysRepo,
    private sessions: SessionsRepo,
  ) {}

  /** A fresh one-time link token for `keyId`, valid LOGIN_LINK_TTL_MS. */
  async loginLink(keyId: string): Promise<{ token: string; expiresAt: Date }> {
    return { token: await this.sessions.mint(keyId, 'link', LOGIN_LINK_TTL_MS), expiresAt: new Date(Date.now() + LOGIN_LINK_TTL_MS) };
  }

  /** Consumes a link token; a session token, or undefined for a used or expired link. */
  async redeemLink(token: string): Promise<string | undefined> {
    const keyId = await this.sessions.redeem(token, 'link');
    return keyId && (await this.sessions.mint(keyId, 'session', SESSION_TTL_MS));
  }

  /** A session token for a live API key's secret, or undefined (revoked, mistyped, another data directory). */
  async withKey(secret: string): Promise<string | undefined> {
    const key = await this.keys.findBySecret(secret);
    if (!key || key.revoked_at) return undefined;
    await this.keys.touch(key.id);
    return await this.sessions.mint(key.id, 'session', SESSION_TTL_MS);
  }
}
