import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AcceptedInvite, CreateInviteBody, Invite } from '../contract/serving.js';
import type { KeysRepo } from '../db/keys-repo.js';
import type { AuditLog } from './audit-log.js';
import { notFound } from './domain-errors.js';
import type { Principal } from './principal.js';

interface Pending {
  invite_id: string;
  org_id: string;
  name: string;
  scope: 'user' | 'organization';
  token_hash: string;
  created_by: string;
  expires_at: string;
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Invites (docs/architecture.md, "Serving a network"): an organization-scoped caller makes a
 * one-time link; whoever opens it gets a new key of the organization (user-scoped unless
 * asked otherwise), shown that once. Only the token's SHA-256 is kept, in
 * `<data dir>/invites.json` (0600): a pending invite survives a restart. A link is consumed
 * by its first use, and expires (default 72 h).
 */
export class InviteService {
  private readonly file: string;

  constructor(
    dataDir: string,
    private keys: KeysRepo,
    private audit: AuditLog,
  ) {
    this.file = path.join(dataDir, 'invites.json');
  }

  async create(auth: Principal, body: CreateInviteBody, baseUrl: string): Promise<Invite> {
    const token = randomBytes(24).toString('base64url');
    const p: Pending = {
      invite_id: `inv_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
      org_id: auth.orgId,
      name: body.name.trim(),
      scope: body.scope ?? 'user',
      token_hash: hash(token),
      created_by: auth.key.id,
      expires_at: new Date(Date.now() + (body.ttl_hours ?? 72) * 3_600_000).toISOString(),
    };
    this.save([...this.live(), p]);
    await this.audit.record(auth, 'invite.create', p.invite_id, { name: p.name, scope: p.scope });
    return { invite_id: p.invite_id, name: p.name, scope: p.scope, url: `${baseUrl}/ui/invite?token=${token}`, expires_at: p.expires_at };
  }

  /** Consumes the invite and mints its key; a used, expired or unknown token is a 404 naming `token`. */
  async accept(token: string, baseUrl: string, fingerprint: string | undefined): Promise<AcceptedInvite> {
    const pending = this.live();
    const p = pending.find((x) => x.token_hash === hash(token));
    if (!p) throw notFound('This invite link was already used, has expired, or is not from this service: ask for a new one.', 'invite_not_found', 'token');
    this.save(pending.filter((x) => x !== p));
    const { row, secret } = await this.keys.create(p.org_id, p.name, p.scope);
    await this.audit.record({ orgId: p.org_id, key: row, via: 'bearer' }, 'invite.accept', p.invite_id, { key_id: row.id, invited_by: p.created_by });
    return {
      key: {
        id: row.id,
        name: row.name,
        scope: row.scope,
        user_id: row.user_id,
        prefix: row.prefix,
        created_at: row.created_at,
        last_used_at: row.last_used_at,
        secret,
      },
      url: baseUrl,
      tls_fingerprint: fingerprint ?? null,
    };
  }

  private live(): Pending[] {
    let all: Pending[];
    try {
      all = JSON.parse(fs.readFileSync(this.file, 'utf8')) as Pending[];
    } catch {
      all = [];
    }
    const now = new Date().toISOString();
    return all.filter((p) => p.expires_at > now);
  }

  private save(list: Pending[]) {
    fs.writeFileSync(`${this.file}.tmp`, `${JSON.stringify(list, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(`${this.file}.tmp`, this.file);
  }
}
