import type { IncomingMessage as Request } from 'node:http';
import type { Principal } from '../core/principal.js';
import type { Repos } from '../db/repos.js';
import { ApiError } from './api-errors.js';

export const SESSION_COOKIE = 'box_session';

const invalidKey = (message: string) => new ApiError(401, 'authentication_error', message, { code: 'invalid_api_key' });

function cookieValue(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

/**
 * Resolves the caller: `Authorization: Bearer`, Anthropic-style `x-api-key`, or the web
 * UI's session cookie (only same-origin; the local guard already refused cross-site).
 */
export async function authenticate(req: Request, repos: Repos): Promise<Principal> {
  const auth = req.headers.authorization;
  let secret: string | undefined;
  if (auth !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) throw invalidKey('The Authorization header must be "Bearer <API key>".');
    secret = m[1];
  } else if (typeof req.headers['x-api-key'] === 'string') {
    secret = req.headers['x-api-key'];
  }
  if (secret !== undefined) {
    const key = await repos.keys.findBySecret(secret);
    if (!key) throw invalidKey('Invalid API key.');
    await repos.keys.touch(key.id);
    return { key, orgId: key.org_id, via: 'bearer' };
  }
  const session = cookieValue(req, SESSION_COOKIE);
  if (session) {
    const keyId = await repos.sessions.redeem(session, 'session');
    const key = keyId ? await repos.keys.get(keyId) : undefined;
    if (key && !key.revoked_at) {
      await repos.keys.touch(key.id); // the UI's own key shows when it was last used, too
      return { key, orgId: key.org_id, via: 'session' };
    }
    throw invalidKey('You are signed out: sign in again with an API key or a new sign-in link.');
  }
  throw invalidKey('Missing API key: send "Authorization: Bearer <API key>".');
}
