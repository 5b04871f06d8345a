/**
 * A small, deterministic JSON-schema instance generator for the echo engine: enough of
 * draft 2020-12 for structured-output schemas as clients send them (type, properties,
 * required, items, min/maxItems, enum, const, min/max(Length), multipleOf, pattern-free
 * strings, formats date-time/date/email/uri/uuid, anyOf/oneOf (first), allOf (merged),
 * local $ref). Strings are derived from `seed` (the conversation), so answers vary with the
 * input. The result is always checked with ajv by the service; a schema this cannot satisfy
 * (e.g. a `pattern`) ends in the service's clear output_validation_failed error.
 */
type Schema = Record<string, unknown>;

const FORMATS: Record<string, string> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00Z',
  email: 'echo@example.com',
  uri: 'https://example.com/echo',
  uuid: '00000000-0000-4000-8000-000000000000',
  hostname: 'example.com',
  ipv4: '127.0.0.1',
};

export function schemaInstance(schema: Schema, seed: string): unknown {
  return gen(schema, schema, seed, 0);
}

function resolveRef(root: Schema, ref: string): Schema {
  if (!ref.startsWith('#')) return {};
  let node: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) node = (node as Schema | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return (node as Schema) ?? {};
}

function gen(s: Schema, root: Schema, seed: string, depth: number): unknown {
  if (depth > 16) return null;
  if (typeof s.$ref === 'string') return gen({ ...resolveRef(root, s.$ref), ...withoutKey(s, '$ref') }, root, seed, depth + 1);
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if (Array.isArray(s.allOf)) return gen(mergeAll([withoutKey(s, 'allOf'), ...(s.allOf as Schema[])]), root, seed, depth + 1);
  const alt = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (Array.isArray(alt) && alt.length) return gen({ ...withoutKey(withoutKey(s, 'anyOf'), 'oneOf'), ...alt[0] }, root, seed, depth + 1);
  const type = Array.isArray(s.type) ? (s.type.find((t) => t !== 'null') ?? s.type[0]) : s.type;
  switch (type ?? (s.properties ? 'object' : s.items ? 'array' : 'string')) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = (s.properties ?? {}) as Record<string, Schema>;
      for (const [k, v] of Object.entries(props)) out[k] = gen(v, root, `${seed}`, depth + 1);
      for (const k of (s.required as string[] | undefined) ?? []) if (!(k in out)) out[k] = null;
      return out;
    }
    case 'array': {
      const n = Math.max(Number(s.minItems ?? 1), 0);
      const count = s.maxItems !== undefined ? Math.min(n, Number(s.maxItems)) : n;
      const items = (Array.isArray(s.prefixItems) ? s.prefixItems : []) as Schema[];
      return Array.from({ length: Math.max(count, items.length) }, (_, i) => gen(items[i] ?? ((s.items as Schema) || {}), root, seed, depth + 1));
    }
    case 'integer':
    case 'number':
      return numberFor(s, type === 'integer');
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return stringFor(s, seed);
  }
}

function numberFor(s: Schema, integer: boolean): number {
  const min = s.minimum as number | undefined;
  const exMin = s.exclusiveMinimum as number | undefined;
  const max = s.maximum as number | undefined;
  const step = (s.multipleOf as number | undefined) ?? (integer ? 1 : undefined);
  let v = min ?? (exMin !== undefined ? exMin + (step ?? 1) : 0);
  if (max !== undefined && v > max) v = max;
  if (step) v = Math.ceil(v / step) * step;
  return integer ? Math.round(v) : v;
}

function stringFor(s: Schema, seed: string): string {
  if (typeof s.format === 'string' && FORMATS[s.format]) return FORMATS[s.format];
  const min = Number(s.minLength ?? 0);
  const max = s.maxLength === undefined ? 64 : Number(s.maxLength);
  let v = seed.trim().replace(/\s+/g, ' ') || 'echo';
  while (v.length < min) v += ` ${v}`;
  return [...v].slice(0, Math.max(min, Math.min(max, v.length))).join('');
}

function withoutKey(s: Schema, k: string): Schema {
  const { [k]: _drop, ...rest } = s;
  return rest;
}

function mergeAll(parts: Schema[]): Schema {
  const out: Schema = {};
  for (const p of parts) {
    for (const [k, v] of Object.entries(p)) {
      if (k === 'properties') out.properties = { ...(out.properties as Schema), ...(v as Schema) };
      else if (k === 'required') out.required = [...((out.required as string[]) ?? []), ...(v as string[])];
      else out[k] = v;
    }
  }
  return out;
}
