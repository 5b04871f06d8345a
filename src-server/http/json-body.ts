import { badRequest } from './errors.js';
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
  checkShape(value);
  return value;
}

function checkShape(root: unknown): void {
  const stack: { v: unknown; path: PropertyKey[] }[] = [{ v: root, path: [] }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (path.length >= MAX_JSON_DEPTH) {
      throw badRequest(
        `Invalid ${fieldName(path.slice(0, 1))}: JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted.`,
        fieldName(path.slice(0, 1)),
        'json_too_deep',
      );
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: [...path, i] });
      continue;
    }
    for (const k of Object.keys(v)) {
      if (k === PROTO) {
        const at = fieldName([...path, k]);
        throw badRequest(`Invalid ${at}: the key "${k}" is not accepted anywhere in a request body.`, at, 'forbidden_key');
      }
      stack.push({ v: (v as Record<string, unknown>)[k], path: [...path, k] });
    }
  }
}

const fieldName = (path: PropertyKey[]) => paramName(null, path);
