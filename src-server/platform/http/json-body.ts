import { badRequest } from './api-errors.js';
import { paramName } from './validate.js';

/**
 * Deepest nesting any JSON body may have. No operation needs more than a few levels (a
 * policy document is 6; structured-output schemas rarely exceed 20); code that walks a
 * body recursively (zod, JSON.stringify, policy checks) is safe far above this bound.
 */
export const MAX_JSON_DEPTH = 64;

/** The one key that reaches an object's prototype when a body is copied by assignment (zod does). */
const PROTO = '__proto__';

/**
 * Parses a request body. V8's JSON.parse is iterative and makes `__proto__` an own
 * property (it never sets a prototype), so parsing itself is safe; this then walks the
 * result with an explicit stack (no recursion) and refuses, naming the field:
 * - nesting deeper than MAX_JSON_DEPTH, before any recursive walk sees the value;
 * - a `__proto__` key anywhere: validators copy objects by assignment, where `__proto__`
 *   silently replaces the copy's prototype and drops the data (a policy stored as `{}`).
 *   No operation has such a field, and no valid map key (hostnames, header and env names,
 *   metadata) can be it. (`constructor`/`prototype` are plain own keys after JSON.parse
 *   and nothing here deep-merges, so they stay legal, e.g. in a tool's JSON schema.)
 */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw badRequest(`The request body is not valid JSON: ${(e as Error).message}`, null, 'invalid_json');
  }
  if (typeof value === 'object' && value !== null) checkShape(value);
  return value;
}

/** One value still to visit; its path is rebuilt from the parent links only when refused. */
interface Visit {
  v: unknown;
  depth: number;
  parent: Visit | null;
  key: PropertyKey;
}

const pathOf = (at: Visit): PropertyKey[] => {
  const path: PropertyKey[] = [];
  for (let n: Visit | null = at; n && n.parent; n = n.parent) path.push(n.key);
  return path.reverse();
};

function checkShape(root: unknown): void {
  // Parent links instead of a path array per value: no allocation beyond one small object
  // per object or array (scalars are checked inline), on the inference hot path too.
  const stack: Visit[] = [{ v: root, depth: 0, parent: null, key: '' }];
  while (stack.length) {
    const at = stack.pop()!;
    const v = at.v as object;
    if (at.depth >= MAX_JSON_DEPTH) {
      const top = pathOf(at).slice(0, 1);
      throw badRequest(`Invalid ${fieldName(top)}: JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted.`, fieldName(top), 'json_too_deep');
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const c: unknown = v[i];
        if (typeof c === 'object' && c !== null) stack.push({ v: c, depth: at.depth + 1, parent: at, key: i });
      }
      continue;
    }
    for (const k of Object.keys(v)) {
      if (k === PROTO) {
        const f = fieldName([...pathOf(at), k]);
        throw badRequest(`Invalid ${f}: the key "${k}" is not accepted anywhere in a request body.`, f, 'forbidden_key');
      }
      const c = (v as Record<string, unknown>)[k];
      if (typeof c === 'object' && c !== null) stack.push({ v: c, depth: at.depth + 1, parent: at, key: k });
    }
  }
}

const fieldName = (path: PropertyKey[]) => paramName(null, path);
