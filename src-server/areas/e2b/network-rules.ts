import { policyDocumentProblem, type PolicyDocument } from '@box/contract/policies';
import { invalid } from '../../kernel/domain-errors.js';
import { boxSecretRefs } from './secrets.js';
import type { BoxesPort, PoliciesPort } from './ports.js';
import type { SandboxesRepo, SandboxRow } from './sandboxes-repo.js';

/** E2B's "all traffic" selector (the SDK's ALL_TRAFFIC). */
const ALL_TRAFFIC = '0.0.0.0/0';

/** E2B's network options of a sandbox, as create and updateNetwork send them. */
export interface E2BNetwork {
  allowOut?: string[];
  denyOut?: string[];
  /** `allow_internet_access: false` is `denyOut: [0.0.0.0/0]`. */
  allowInternetAccess?: boolean;
  /** Per-host header transforms on outbound requests. */
  rules?: Record<string, Array<{ transform?: { headers?: Record<string, string> } }>>;
  /** false: its getHost addresses want the traffic access token (not a policy rule: the ingress checks it). */
  allowPublicTraffic?: boolean;
  /** The Host header its servers get from its getHost addresses (`${PORT}`: the port); not a policy rule: the ingress sets it. */
  maskRequestHost?: string;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const HOST = /^(\*\.)?([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * One allowOut/denyOut entry as a Box policy host key: a domain or `*.domain`, an address,
 * an address as `/32`, or all traffic (`0.0.0.0/0`, answered as `*`). Box's egress proxy
 * matches hosts by name, not address ranges, so other CIDR blocks are refused naming the
 * entry.
 */
export function hostKey(entry: string, param: string): string {
  const e = entry.trim().toLowerCase();
  if (e === ALL_TRAFFIC || e === '*') return '*';
  const slash = e.indexOf('/');
  if (slash >= 0) {
    const ip = e.slice(0, slash);
    if (IPV4.test(ip) && e.slice(slash + 1) === '32') return ip;
    throw invalid(
      `${param}: "${entry}" is an address range; Box's egress policy matches hosts by name or address, so give single addresses (or ${ALL_TRAFFIC} for all traffic).`,
      param,
    );
  }
  if (IPV4.test(e) || (e.length <= 253 && HOST.test(e))) return e;
  throw invalid(`${param}: "${entry}" is not a domain, "*.domain", an IPv4 address or ${ALL_TRAFFIC}.`, param);
}

/**
 * A denyOut host: plain http is answered 403; https is refused at CONNECT (`passthrough`: not
 * intercepted, so the proxy's answer is the tunnel's refusal), so a client's connection fails
 * as behind E2B's firewall instead of completing TLS and reading a 403.
 */
const DENIED = (key: string) => ({
  tls: 'passthrough' as const,
  rules: [{ respond: { status: 403, body: `Refused by the sandbox's network rules: ${key} is in denyOut.\n` } }],
});

/**
 * The Box HTTP policy that keeps E2B's network rules, or null when they restrict nothing
 * (no policy: Box's default lets everything out, as E2B's does). E2B's rules, in Box's terms:
 * - all traffic denied (`denyOut` holding 0.0.0.0/0, or `allowInternetAccess: false`): only
 *   the `allowOut` hosts are in the document, so every other host is refused;
 * - otherwise `*` lets everything out and each `denyOut` host is answered 403 by the proxy;
 * - `allowOut` wins over `denyOut` (E2B: "allowed entries always take precedence");
 * - a `rules` transform sets its headers on requests to its host (https too: Box's proxy
 *   intercepts TLS), and, as on E2B, grants no access the other lists do not; a header's
 *   `${e2b.secrets.NAME}` (the SDK's `Secret.fill`) is the Box secret's `${secrets.NAME}`,
 *   put in by the proxy on the host, so the value never enters the sandbox.
 */
export function policyOf(n: E2BNetwork, at = 'network'): PolicyDocument | null {
  const allow = (n.allowOut ?? []).map((e, i) => hostKey(e, `${at}.allowOut[${i}]`));
  const deny = (n.denyOut ?? []).map((e, i) => hostKey(e, `${at}.denyOut[${i}]`));
  const transforms = Object.entries(n.rules ?? {});
  const denyAll = n.allowInternetAccess === false || deny.includes('*');
  if (!denyAll && !deny.length && !allow.length && !transforms.length) return null;
  const doc: PolicyDocument = {};
  if (!denyAll) doc['*'] = { rules: [] };
  for (const key of deny) if (key !== '*') doc[key] = DENIED(key);
  for (const key of allow) doc[key] = { rules: [] };
  for (const [host, rules] of transforms) {
    const key = hostKey(host, `${at}.rules`);
    const given = Object.assign({}, ...rules.map((r) => r.transform?.headers ?? {})) as Record<string, string>;
    const headers = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, boxSecretRefs(v, `${at}.rules`)]));
    const granted = key in doc ? doc[key]!.rules.length === 0 : '*' in doc;
    if (!granted || !Object.keys(headers).length) continue;
    doc[key] = { rules: [{ request: { set: { headers } } }] };
  }
  const problem = policyDocumentProblem(doc, at);
  if (problem) throw invalid(`${at}: ${problem.message} (as the Box HTTP policy ${problem.param})`, at);
  return doc;
}

/**
 * The HTTP policies made for sandboxes' network rules: made at create (before the box, which
 * starts with it attached), replaced by updateNetwork, deleted with the sandbox.
 */
export class SandboxPolicies {
  constructor(
    private policies: PoliciesPort,
    private boxes: Pick<BoxesPort, 'setHttpPolicy'>,
    private repo: Pick<SandboxesRepo, 'setPolicy'>,
    private log: { warn(...a: unknown[]): void },
  ) {}

  /** The policy for a new sandbox's rules, or undefined when they restrict nothing. */
  async make(orgId: string, name: string, network: E2BNetwork | undefined): Promise<{ id: string } | undefined> {
    const doc = network && policyOf(network);
    return doc ? await this.policies.create(orgId, `${name} network`, doc) : undefined;
  }

  /** E2B's updateNetwork: the new rules replace the old at once (the egress proxy reads the policy per request). */
  async replace(row: SandboxRow, name: string, network: E2BNetwork): Promise<void> {
    const doc = policyOf(network) ?? { '*': { rules: [] } };
    if (row.policy_id) return void (await this.policies.update(row.org_id, row.policy_id, doc));
    const p = await this.policies.create(row.org_id, `${name} network`, doc);
    await this.repo.setPolicy(row.box_id, p.id);
    await this.boxes.setHttpPolicy(row.box_id, p.id);
  }

  async drop(orgId: string, policyId: string | null | undefined): Promise<void> {
    if (!policyId) return;
    try {
      await this.policies.delete(orgId, policyId);
    } catch (e) {
      this.log.warn(`e2b: the sandbox network policy ${policyId} was not deleted`, e);
    }
  }
}
