import { z } from 'zod';
import { idSchema } from './common.js';

/**
 * HTTP (egress) policies. Spec, HTTP policy: keys are an exact hostname, `*.<domain>`
 * (one direct subdomain) or `*`; a hostname is at most 253 characters; at most 100 rules
 * in total; at most 64 KiB encoded. Rule shape: the spec, "HTTP policy".
 */
const POLICY_LIMITS = { hostnameChars: 253, rules: 100, documentBytes: 64 * 1024 } as const;

/** `${secrets.NAME}` inside a header value; NAME follows the secret name rule. */
const SECRET_REF = /\$\{secrets\.([A-Za-z_][A-Za-z0-9_]{0,127})\}/g;

/** Names of the secrets a header value refers to, in order. */
export const secretRefs = (value: string): string[] => [...value.matchAll(SECRET_REF)].map((m) => m[1]!);

/** Replaces each `${secrets.NAME}` with `lookup(NAME)`. */
export const expandSecretRefs = (value: string, lookup: (name: string) => string): string => value.replace(SECRET_REF, (_m, name: string) => lookup(name));

const httpMethod = z.string().regex(/^[A-Za-z]{1,16}$/, 'must be an HTTP method such as GET');
const urlPath = z.string().min(1).max(2048).startsWith('/', 'must start with "/"');
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const headerValue = z
  .string()
  .max(8192)
  .regex(/^[\t\x20-\x7e]*$/, 'must be printable ASCII without line breaks')
  .refine((v) => !v.replace(SECRET_REF, '').includes('${'), {
    message: 'a secret reference must read ${secrets.NAME} with NAME a valid secret name',
  });

export const PolicyRule = z
  .strictObject({
    match: z
      .strictObject({
        method: z.union([httpMethod, z.array(httpMethod).min(1).max(16)]).optional(),
        path: z
          .strictObject({ equals: urlPath.optional(), prefix: urlPath.optional() })
          .refine((p) => (p.equals === undefined) !== (p.prefix === undefined), 'must have exactly one of equals or prefix')
          .optional(),
      })
      .optional(),
    request: z
      .strictObject({
        set: z.strictObject({
          headers: z.record(z.string().regex(headerName, 'must be a valid HTTP header name'), headerValue),
        }),
      })
      .optional(),
    respond: z.strictObject({ status: z.number().int().min(100).max(599), body: z.string().max(16384).optional() }).optional(),
  })
  .refine((r) => !(r.request && r.respond), 'a rule either rewrites the request (request) or answers it (respond), not both');
export type PolicyRule = z.infer<typeof PolicyRule>;

/**
 * How the egress proxy treats https to a host entry's hosts. `intercept` (the default): the
 * proxy terminates TLS with a leaf signed by the install's egress CA (trusted in every box),
 * so method and path rules, `respond` and header `set` apply to https exactly as to plain
 * http, then connects upstream over verified TLS. `passthrough`: the bytes are relayed
 * untouched (for certificate-pinned clients); only a host-level verdict applies (the entry
 * is allowed when some rule could let a request through) and the log shows the CONNECT.
 */
const TLS_MODES = ['intercept', 'passthrough'] as const;
/**
 * Ports a host entry allows (absent: any port). A number, or `"gateway"`: the port of this
 * service's inference gateway, read when each request is decided (so a policy keeps meaning
 * "the gateway" when the service moves to another port). A request or tunnel to a port not
 * listed is refused. Example: `{"host.box.internal": {"ports": ["gateway"], "rules": []}}`.
 */
export const GATEWAY_PORT = 'gateway';
const PortSpec = z.union([z.number().int().min(1, 'must be a port from 1 to 65535').max(65535, 'must be a port from 1 to 65535'), z.literal(GATEWAY_PORT)]);
const HostRules = z.strictObject({ rules: z.array(PolicyRule), tls: z.enum(TLS_MODES).optional(), ports: z.array(PortSpec).min(1).max(32).optional() });
type HostRules = z.infer<typeof HostRules>;
export type PolicyDocument = Record<string, HostRules>;

const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** Why `key` is not a valid host pattern, or null when it is. */
function hostPatternProblem(key: string): string | null {
  if (key === '*') return null;
  if (key.length > POLICY_LIMITS.hostnameChars) return `a hostname is at most ${POLICY_LIMITS.hostnameChars} characters`;
  const host = key.startsWith('*.') ? key.slice(2) : key;
  const labels = host.split('.');
  if (labels.some((l) => !LABEL.test(l))) {
    return 'must be a hostname (labels of 1-63 letters, digits or "-"), "*.<domain>" or "*"';
  }
  return null;
}

/** Where a document breaks a rule, as `{param, message}`; null when valid. Params read `document["host"].rules[2].respond.status`. */
export function policyDocumentProblem(doc: unknown, prefix = 'document'): { param: string; message: string } | null {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return { param: prefix, message: 'must be an object mapping host patterns to {rules}' };
  const bytes = new TextEncoder().encode(JSON.stringify(doc)).length;
  if (bytes > POLICY_LIMITS.documentBytes) {
    return { param: prefix, message: `is ${bytes} bytes encoded; the limit is ${POLICY_LIMITS.documentBytes} bytes (64 KiB)` };
  }
  const seen = new Set<string>();
  let rules = 0;
  for (const [key, value] of Object.entries(doc)) {
    const at = `${prefix}[${JSON.stringify(key)}]`;
    const bad = hostPatternProblem(key);
    if (bad) return { param: at, message: `host pattern ${JSON.stringify(key)} ${bad}` };
    if (seen.has(key.toLowerCase())) return { param: at, message: 'host patterns are case-insensitive; this one appears twice' };
    seen.add(key.toLowerCase());
    const r = HostRules.safeParse(value);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      const path = issue.code === 'unrecognized_keys' && issue.keys.length ? [...issue.path, issue.keys[0]!] : issue.path;
      const param = path.reduce<string>((s, seg) => (typeof seg === 'number' ? `${s}[${seg}]` : `${s}.${String(seg)}`), at);
      return { param, message: issue.code === 'unrecognized_keys' ? 'is not a known field' : issue.message };
    }
    rules += r.data.rules.length;
    if (rules > POLICY_LIMITS.rules) return { param: prefix, message: `holds more than ${POLICY_LIMITS.rules} rules in total` };
  }
  return null;
}

export const PolicyIdParams = z.object({ id: idSchema('httpPolicy', 'id') });
const policyName = z.string().min(1).max(128);
const documentInput = z.record(z.string(), z.unknown());

/**
 * Either `document`, or `preset` (an id from GET /v1/http-policies/presets) whose document is
 * copied; `name` defaults to the preset's name.
 */
export const CreatePolicyBody = z
  .strictObject({ name: policyName.optional(), document: documentInput.optional(), preset: z.string().max(64).optional() })
  .superRefine((b, ctx) => {
    if ((b.document === undefined) === (b.preset === undefined))
      ctx.addIssue({ code: 'custom', path: ['document'], message: 'give exactly one of document or preset' });
    else if (b.document !== undefined && b.name === undefined) ctx.addIssue({ code: 'custom', path: ['name'], message: 'is required with a document' });
  });
export const PatchPolicyBody = z.strictObject({ name: policyName.optional(), document: documentInput.optional() });
export const AttachPolicyBody = z.strictObject({ policy_id: idSchema('httpPolicy', 'policy_id') });
export const BoxPolicyParams = z.object({ box_id: idSchema('box', 'box_id') });

export const HttpPolicy = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  document: z.record(z.string(), HostRules),
  created_at: z.string(),
  updated_at: z.string(),
});
export type HttpPolicy = z.infer<typeof HttpPolicy>;

/** A ready-made policy (GET /v1/http-policies/presets). */
export const PolicyPreset = z.object({ id: z.string(), name: z.string(), description: z.string(), document: z.record(z.string(), HostRules) });
/** DELETE /v1/boxes/{id}/http-policy. */
export const PolicyDetached = z.object({ box_id: z.string(), http_policy_id: z.null() });
