import type { z } from 'zod';

/** What the check reads of a route (a RouteSpec of http/route.ts). */
interface CheckedRoute {
  method: string;
  path: string;
  response?: z.ZodType;
}

/**
 * The response contract check (issue 13). When the service runs under tests
 * (`ServiceConfig.checkResponses`, on by default under vitest), every 2xx JSON answer is
 * checked against its route's `response` schema exactly as a client receives it (after
 * JSON encoding): a missing or mistyped field, or a field the schema does not declare,
 * turns the answer into a 500 naming the route and the field, and is recorded for the test
 * harness, which fails the test file when it closes the service. Off in production: a
 * drift there is a bug to fix, not a reason to refuse the client a correct-enough answer.
 */

/** Violations seen by each service (keyed by its AppContext), for the test harness. */
const seen = new WeakMap<object, string[]>();

export function responseViolations(ctx: object): string[] {
  return seen.get(ctx) ?? [];
}

/** What is wrong with `payload` as the JSON answer of `spec`, or null when it matches. */
export function responseProblem(spec: CheckedRoute, payload: unknown): { message: string; param: string | null } | null {
  const route = `${spec.method.toUpperCase()} ${spec.path}`;
  if (!spec.response) {
    return { message: `${route} answered JSON but declares no response schema (contract/routes.ts).`, param: null };
  }
  const wire: unknown = JSON.parse(JSON.stringify(payload ?? {}));
  const r = spec.response.safeParse(wire);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const field = fieldName(issue.path);
    return { message: `${route} answered a body that breaks its response schema at ${field}: ${issue.message}.`, param: field };
  }
  const extra = undeclared(wire, r.data, []);
  if (extra) return { message: `${route} answered a field its response schema does not declare: ${extra}.`, param: extra };
  return null;
}

export function recordViolation(ctx: object, message: string): void {
  const list = seen.get(ctx) ?? [];
  list.push(message);
  seen.set(ctx, list);
}

/** The first key present in the answer but stripped by the schema (zod objects drop unknown keys). */
function undeclared(wire: unknown, parsed: unknown, at: PropertyKey[]): string | null {
  if (Array.isArray(wire)) {
    if (!Array.isArray(parsed)) return null;
    for (let i = 0; i < wire.length; i++) {
      const hit = undeclared(wire[i], parsed[i], [...at, i]);
      if (hit) return hit;
    }
    return null;
  }
  if (!isPlainObject(wire) || !isPlainObject(parsed)) return null;
  for (const [k, v] of Object.entries(wire)) {
    if (!(k in parsed)) return fieldName([...at, k]);
    const hit = undeclared(v, parsed[k], [...at, k]);
    if (hit) return hit;
  }
  return null;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function fieldName(path: PropertyKey[]): string {
  if (!path.length) return '(body)';
  return path.reduce<string>((s, seg, i) => (typeof seg === 'number' ? `${s}[${seg}]` : i === 0 ? String(seg) : `${s}.${String(seg)}`), '');
}
