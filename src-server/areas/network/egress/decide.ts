import type { PolicyDocument } from '@box/contract/policies';
import { evaluate, matchHost, portAllowed, type EgressRequest } from '../../policies/ports.js';

/** The policy governing a box's egress; null when none is attached (org default: allow all, logged). */
export interface PolicyRef {
  id: string;
  name: string;
  document: PolicyDocument;
}

export interface EgressDecision {
  verdict: 'allow' | 'deny' | 'respond';
  policyId: string | null;
  ruleIndex: number | null;
  /** Header templates (`${secrets.NAME}` unexpanded) to set on a plain HTTP request. */
  setHeaders?: Record<string, string>;
  respond?: { status: number; body?: string };
  /** For a refusal: the text of the proxy's own 403, naming the policy. */
  message: string;
}

const named = (p: PolicyRef) => `HTTP policy "${p.name}" (${p.id})`;

/** Plain HTTP: the host, port, method and path are all known, so the whole document applies. */
export function decideRequest(policy: PolicyRef | null, req: EgressRequest): EgressDecision {
  if (!policy) return { verdict: 'allow', policyId: null, ruleIndex: null, message: 'no policy attached: the organization default allows all' };
  const v = evaluate(policy.document, req);
  const base = { policyId: policy.id, ruleIndex: v.rule ?? null };
  if (v.verdict === 'deny') return { ...base, verdict: 'deny', message: `Refused by ${named(policy)}: ${v.reason}.` };
  if (v.verdict === 'respond') return { ...base, verdict: 'respond', respond: v.respond, message: `Answered by ${named(policy)}: ${v.reason}.` };
  return { ...base, verdict: 'allow', setHeaders: v.setHeaders, message: v.reason };
}

/**
 * CONNECT (https) the proxy does not intercept (connect-tunnel.ts: no policy entry governs
 * the host, the entry says `tls: "passthrough"`, or there is no egress CA), so only the
 * host is known; intercepted tunnels decide each request (intercept.ts). The tunnel
 * opens when the host's entry could let some request through: no rules, or at least one
 * rule that does not `respond` (its index is logged; method/path conditions and header
 * rewrites cannot be enforced inside TLS). An entry whose rules all `respond` answers with
 * its first rule when that one is unconditional, else is refused; so is an unmatched host
 * and a port the entry's `ports` do not list.
 */
export function decideConnect(policy: PolicyRef | null, host: string, port?: number, gatewayPort?: number): EgressDecision {
  if (!policy) return { verdict: 'allow', policyId: null, ruleIndex: null, message: 'no policy attached: the organization default allows all' };
  const key = matchHost(policy.document, host);
  const base = { policyId: policy.id };
  if (key === undefined) return { ...base, verdict: 'deny', ruleIndex: null, message: `Refused by ${named(policy)}: no policy entry matches host ${host}.` };
  const entry = policy.document[key]!;
  if (!portAllowed(entry, port, gatewayPort)) {
    return { ...base, verdict: 'deny', ruleIndex: null, message: `Refused by ${named(policy)}: host entry ${key} does not allow port ${port ?? '(unknown)'}.` };
  }
  const rules = entry.rules;
  if (rules.length === 0) return { ...base, verdict: 'allow', ruleIndex: null, message: `host entry ${key} has no rules` };
  const i = rules.findIndex((r) => !r.respond);
  if (i >= 0) return { ...base, verdict: 'allow', ruleIndex: i, message: `rule ${i} of ${key} may allow requests to this host` };
  const first = rules[0]!;
  if (!first.match && first.respond) {
    return {
      ...base,
      verdict: 'respond',
      ruleIndex: 0,
      respond: { ...first.respond },
      message: `Answered by ${named(policy)}: rule 0 of ${key} answers locally.`,
    };
  }
  return {
    ...base,
    verdict: 'deny',
    ruleIndex: null,
    message: `Refused by ${named(policy)}: every rule of host entry ${key} answers locally, and an https request's method and path are not visible to the proxy.`,
  };
}
