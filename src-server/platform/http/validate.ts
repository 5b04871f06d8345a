import { z } from 'zod';
import { badRequest } from './api-errors.js';

/** Names a zod issue path the way the spec's `param` does: `document.rules[0].match`. */
export function paramName(prefix: string | null, path: PropertyKey[]): string | null {
  let out = prefix ?? '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out || null;
}

/** Parses with a zod schema; the first issue becomes a 400 naming the field. */
export function parseOr400<T>(schema: z.ZodType<T>, value: unknown, prefix: string | null = null): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  let path = issue.path;
  if (issue.code === 'unrecognized_keys' && issue.keys.length) path = [...path, issue.keys[0]!];
  const param = paramName(prefix, path);
  const message =
    issue.code === 'unrecognized_keys'
      ? `Unknown field ${param}: it is not accepted by this operation.`
      : issue.code === 'invalid_type' && issue.input === undefined
        ? `Missing required field ${param}.`
        : `Invalid ${param ?? 'request'}: ${issue.message}`;
  throw badRequest(message, param);
}
