import { z } from 'zod';
import { idSchema, queryInt } from './common.js';

/**
 * Networking of boxes (api-surface.md, Networking): published ports ("listeners"),
 * custom domains routed by the ingress, and the egress log of the policy proxy.
 */
const LISTENER_PROTOCOLS = ['http', 'tcp'] as const;
export type ListenerProtocol = (typeof LISTENER_PROTOCOLS)[number];
/** At most this many published ports a box. */
export const MAX_LISTENERS_PER_BOX = 32;
/** At most this many custom domains a box. */
export const MAX_DOMAINS_PER_BOX = 16;

const guestPort = z.number().int().min(1, 'must be a TCP port (1-65535)').max(65535, 'must be a TCP port (1-65535)');

export const CreateListenerBody = z.strictObject({
  guest_port: guestPort,
  protocol: z.enum(LISTENER_PROTOCOLS).optional().default('http'),
});
export type CreateListenerBody = z.infer<typeof CreateListenerBody>;

export const ListenerParams = z.object({
  box_id: idSchema('box', 'box_id'),
  guest_port: z.string().regex(/^\d{1,5}$/, 'must be a TCP port (1-65535)').transform(Number).pipe(guestPort),
});

/**
 * `route_status`: `active` when the box runs and the forward is live; `inactive` while the
 * box has no VM, or its runtime cannot forward live (applied when the VM next starts).
 */
export interface Listener {
  guest_port: number;
  protocol: ListenerProtocol;
  route_status: 'active' | 'inactive';
  /** `http://<box-name>.box.localhost:<ingress-port>/` (http) or `tcp://127.0.0.1:<port>` (tcp). */
  public_url: string;
  public_host: string;
  public_port: number;
  created_at: string;
}

/** A host name: DNS labels, at least two of them (`myapp.localhost`), at most 253 characters. */
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const domain = z
  .string()
  .transform((s) => s.toLowerCase().replace(/\.$/, ''))
  .pipe(z.string().regex(DOMAIN, 'must be a host name of two or more DNS labels, such as "myapp.localhost"'))
  .refine((d) => !d.endsWith('.box.localhost'), 'names under .box.localhost are the ingress\'s own; choose another');

export const CreateDomainBody = z.strictObject({
  domain,
  /** The http listener it routes to; default: the box's first http listener. */
  guest_port: guestPort.optional(),
});
export type CreateDomainBody = z.infer<typeof CreateDomainBody>;
export const DeleteDomainBody = z.strictObject({ domain });
export const DomainParams = z.object({ box_id: idSchema('box', 'box_id'), domain });

export interface BoxDomain {
  domain: string;
  box_id: string;
  guest_port: number | null;
  public_url: string;
  created_at: string;
}

type EgressVerdict = 'allow' | 'deny' | 'respond';

/**
 * One thing a box tried through the egress proxy. `path` is null for CONNECT tunnels (only
 * the host is known without TLS interception) and carries no query string. `status` is
 * the status the box saw (the upstream's, the proxy's own 403/502, or a `respond` rule's);
 * for a tunnel, 200 once it is established.
 */
export interface EgressLogEntry {
  at: string;
  method: string;
  host: string;
  port: number;
  path: string | null;
  verdict: EgressVerdict;
  policy_id: string | null;
  rule_index: number | null;
  status: number | null;
  bytes_out: number;
  bytes_in: number;
}

export const EgressLogQuery = z.object({
  limit: queryInt(1, 100, 50),
  offset: queryInt(0, 100000, 0),
});
