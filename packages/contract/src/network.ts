import { z } from 'zod';
import { idSchema, queryInt } from './common.js';

/**
 * Networking of boxes (ours, beyond the spec: contract/routes.ts): published ports ("listeners"),
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
  guest_port: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a TCP port (1-65535)')
    .transform(Number)
    .pipe(guestPort),
});

/**
 * `route_status`: `active` when the box runs and the forward is live; `inactive` while the
 * box has no VM, or its runtime cannot forward live (applied when the VM next starts).
 */
export const Listener = z.object({
  guest_port: z.number().int(),
  protocol: z.enum(LISTENER_PROTOCOLS),
  route_status: z.enum(['active', 'inactive']),
  /**
   * Where any client on this machine reaches the port with no DNS set-up: the listener's own
   * loopback port, `http://127.0.0.1:<port>/` (http) or `tcp://127.0.0.1:<port>` (tcp).
   * Node's fetch, Python and most libraries on Linux cannot resolve `*.localhost`, hence this.
   */
  public_url: z.string(),
  public_host: z.string(),
  public_port: z.number().int(),
  /**
   * http only: the friendly name through the ingress, `http://<box-name>.box.localhost:<ingress-port>/`
   * (browsers and curl resolve it; a request there also wakes a sleeping box). Null for tcp.
   */
  alias_url: z.string().nullable(),
  created_at: z.string(),
});
export type Listener = z.infer<typeof Listener>;

/** A host name: DNS labels, at least two of them (`myapp.localhost`), at most 253 characters. */
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const domain = z
  .string()
  .transform((s) => s.toLowerCase().replace(/\.$/, ''))
  .pipe(z.string().regex(DOMAIN, 'must be a host name of two or more DNS labels, such as "myapp.localhost"'))
  .refine((d) => !d.endsWith('.box.localhost'), "names under .box.localhost are the ingress's own; choose another");

export const CreateDomainBody = z.strictObject({
  domain,
  /** The http listener it routes to; default: the box's first http listener. */
  guest_port: guestPort.optional(),
});
export type CreateDomainBody = z.infer<typeof CreateDomainBody>;
export const DeleteDomainBody = z.strictObject({ domain });
export const DomainParams = z.object({ box_id: idSchema('box', 'box_id'), domain });

export const BoxDomain = z.object({
  domain: z.string(),
  box_id: z.string(),
  guest_port: z.number().int().nullable(),
  public_url: z.string(),
  created_at: z.string(),
});
export type BoxDomain = z.infer<typeof BoxDomain>;

const EGRESS_VERDICTS = ['allow', 'deny', 'respond'] as const;

/**
 * One thing a box tried through the egress proxy. `path` is null for CONNECT tunnels (only
 * the host is known without TLS interception) and carries no query string. `status` is
 * the status the box saw (the upstream's, the proxy's own 403/502, or a `respond` rule's);
 * for a tunnel, 200 once it is established. Requests inside
 * intercepted TLS are logged one by one with their method and path.
 */
export const EgressLogEntry = z.object({
  at: z.string(),
  method: z.string(),
  host: z.string(),
  port: z.number().int(),
  path: z.string().nullable(),
  verdict: z.enum(EGRESS_VERDICTS),
  policy_id: z.string().nullable(),
  rule_index: z.number().int().nullable(),
  status: z.number().int().nullable(),
  bytes_out: z.number().int(),
  bytes_in: z.number().int(),
  /** `https` for a request seen inside intercepted TLS (or sent as https://), `http` otherwise; `tunnel` for a CONNECT relayed untouched. */
  scheme: z.enum(['http', 'https', 'tunnel']),
  /** From the request's arrival to its last response byte (a tunnel: its whole life); null while open. */
  duration_ms: z.number().nullable(),
  /** Why the proxy refused, answered or could not forward it (the text the box got); null when forwarded. */
  reason: z.string().nullable(),
  /**
   * Headers the policy set on the request (`request.set.headers`): each header's name and, when
   * its value came from a secret, the secret's name. Values are never logged. Empty or absent: none.
   */
  injected_headers: z.array(z.object({ name: z.string(), secret: z.string().nullable() })).optional(),
  /** A plain `http://` request the proxy sent on over HTTPS (port 443) because the policy put headers into it. */
  upgraded_to_https: z.boolean().optional(),
});
export type EgressLogEntry = z.infer<typeof EgressLogEntry>;
/** A listed entry also carries its sequence number. */
export const EgressLogRow = EgressLogEntry.extend({ id: z.number().int() });

/** The egress proxy's CA (GET /v1/egress/ca). */
export const EgressCa = z.object({ certificate: z.string(), fingerprint_sha256: z.string(), created_at: z.string() });
/** After a rotation: running boxes that trust the new CA now, and those that could not be updated. */
export const EgressCaRotated = EgressCa.extend({ boxes_updated: z.number().int(), boxes_failed: z.array(z.string()) });

/** Box egress log filters (also the server-sent stream's). */
const EgressLogFilter = z.object({
  verdict: z.enum(EGRESS_VERDICTS).optional(),
  host: z.string().max(253).optional(),
});

export const EgressLogQuery = EgressLogFilter.extend({
  limit: queryInt(1, 100, 50),
  offset: queryInt(0, 100000, 0),
  /** `1`: answer `text/event-stream`, one `entry` event per new log entry (after the newest `limit` as a backlog). */
  stream: z.enum(['0', '1']).optional(),
});
