import { GATEWAY_PORT, type PolicyDocument, type PolicyRule } from '@box/contract/policies';

export interface EgressRequest {
  /** Host name without port. */
  host: string;
  method: string;
  /** Request path, query string allowed (matching ignores it). */
  path: string;
  /** Destination port; entries with `ports` refuse a request whose port is unknown or not listed. */
  port?: number;
  /** The inference gateway's port, what `"gateway"` in `ports` stands for (undefined: no gateway). */
  gatewayPort?: number;
}

export interface Verdict {
  verdict: 'allow' | 'deny' | 'respond';
  /** The document key that matched the host, when one did. */
  hostKey?: string;
  /** Index of the matching rule within that key's rules. */
  rule?: number;
  /** Headers to set before forwarding; values may hold `${secrets.NAME}` (see expandSecretRefs). */
  setHeaders?: Record<string, string>;
  respond?: { status: number; body?: string };
  reason: string;
}

/**
 * Which document key governs `host` (case-insensitive, trailing dot ignored):
 * an exact key first, then `*.<domain>` when the host is exactly one label under
 * <domain>, then `*`. Undefined when no key matches: such a host is refused.
 */
export function matchHost(doc: PolicyDocument, rawHost: string): string | undefined {
  const host = rawHost.toLowerCase().replace(/\.$/, '');
  const keys = Object.keys(doc);
  const exact = keys.find((k) => k.toLowerCase() === host);
  if (exact !== undefined) return exact;
  const dot = host.indexOf('.');
  if (dot > 0) {
    const parent = `*.${host.slice(dot + 1)}`;
    const wild = keys.find((k) => k.toLowerCase() === parent);
    if (wild !== undefined) return wild;
  }
  return keys.includes('*') ? '*' : undefined;
}

/**
 * Whether a host entry lets `port` through: any port when the entry lists none; else only
 * a listed number, or the gateway's port when `"gateway"` is listed.
 */
export function portAllowed(entry: PolicyDocument[string], port: number | undefined, gatewayPort: number | undefined): boolean {
  if (!entry.ports) return true;
  if (port === undefined) return false;
  return entry.ports.some((p) => (p === GATEWAY_PORT ? gatewayPort !== undefined && port === gatewayPort : p === port));
}

function ruleMatches(rule: PolicyRule, method: string, path: string): boolean {
  const m = rule.match;
  if (!m) return true;
  if (m.method !== undefined) {
    const allowed = (Array.isArray(m.method) ? m.method : [m.method]).map((x) => x.toUpperCase());
    if (!allowed.includes(method.toUpperCase())) return false;
  }
  if (m.path) {
    const bare = path.split('?')[0]!;
    if (m.path.equals !== undefined && bare !== m.path.equals) return false;
    if (m.path.prefix !== undefined && !bare.startsWith(m.path.prefix)) return false;
  }
  return true;
}

/**
 * The policy's answer for one request (the spec, "HTTP policy"): the host picks
 * a key; within it the first matching rule wins. A rule with `respond` answers locally;
 * any other matching rule lets the request through (with its header rewrites). An entry
 * with `ports` refuses other ports before any rule is looked at. A key
 * with an empty rule list allows everything to its hosts; a non-empty list that no
 * rule matches refuses the request, as does a host that matches no key.
 */
export function evaluate(doc: PolicyDocument, req: EgressRequest): Verdict {
  const hostKey = matchHost(doc, req.host);
  if (hostKey === undefined) return { verdict: 'deny', reason: `no policy entry matches host ${req.host}` };
  const entry = doc[hostKey]!;
  if (!portAllowed(entry, req.port, req.gatewayPort)) {
    return { verdict: 'deny', hostKey, reason: `host entry ${hostKey} does not allow port ${req.port ?? '(unknown)'} (ports: ${entry.ports!.join(', ')})` };
  }
  const rules = entry.rules;
  if (rules.length === 0) return { verdict: 'allow', hostKey, reason: `host entry ${hostKey} has no rules: all requests allowed` };
  const i = rules.findIndex((r) => ruleMatches(r, req.method, req.path));
  if (i < 0) return { verdict: 'deny', hostKey, reason: `no rule of host entry ${hostKey} matches ${req.method} ${req.path}` };
  const rule = rules[i]!;
  if (rule.respond) {
    return { verdict: 'respond', hostKey, rule: i, respond: { ...rule.respond }, reason: `rule ${i} of ${hostKey} answers locally` };
  }
  const setHeaders = rule.request?.set.headers;
  return { verdict: 'allow', hostKey, rule: i, ...(setHeaders ? { setHeaders: { ...setHeaders } } : {}), reason: `rule ${i} of ${hostKey} allows` };
}
