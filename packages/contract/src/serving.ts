import { z } from 'zod';
import { CreatedApiKey } from './identity.js';

/** POST /v1/invites: a one-time link that yields a new member's key (organization-scoped callers only). */
export const CreateInviteBody = z.strictObject({
  name: z.string().trim().min(1, 'name: the new member, e.g. "alice" (the name of the key the link yields)').max(128),
  scope: z.enum(['user', 'organization']).default('user'),
  ttl_hours: z.number().int().min(1).max(720).default(72),
});
export type CreateInviteBody = z.input<typeof CreateInviteBody>;

export const Invite = z.object({
  invite_id: z.string(),
  name: z.string(),
  scope: z.enum(['user', 'organization']),
  /** The link to hand over: opened in a browser it shows the key once; `box context add --invite LINK` takes it too. */
  url: z.string(),
  expires_at: z.string(),
});
export type Invite = z.infer<typeof Invite>;

export const AcceptInviteBody = z.strictObject({ token: z.string().trim().min(1, 'token: the part after "token=" in the invite link').max(256) });

/** POST /v1/invites/accept: the new key (shown this once) and how to reach the service. */
export const AcceptedInvite = z.object({
  key: CreatedApiKey,
  url: z.string(),
  /** SHA-256 fingerprint of the service's TLS certificate, when it serves HTTPS. */
  tls_fingerprint: z.string().nullable(),
});
export type AcceptedInvite = z.infer<typeof AcceptedInvite>;

/** GET /v1/health: the process answers (liveness). */
export const Health = z.object({ status: z.literal('ok'), uptime_s: z.number() });

const Check = z.object({ ok: z.boolean(), detail: z.string() });
/** GET /v1/ready: 200 when ready, 503 (same body) when not. */
export const Readiness = z.object({
  ready: z.boolean(),
  checks: z.object({ store: Check, migrations: Check, templates: Check }),
});
export type Readiness = z.infer<typeof Readiness>;
