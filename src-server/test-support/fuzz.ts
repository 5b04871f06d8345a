import fc from 'fast-check';

/**
 * Hostile requests for the route fuzzer, derived from the OpenAPI document: for each
 * operation, path parameters with bad encodings and odd values, declared query parameters
 * with wrong types, huge and repeated values, and bodies that are wrong-typed, huge, deeply
 * nested, carry prototype keys, or are not JSON at all.
 */
interface Operation {
  method: string;
  /** OpenAPI path, `/v1/boxes/{box_id}`. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  /** Top-level body fields of a JSON body; undefined when the operation takes none. */
  bodyFields?: string[];
  rawBody: boolean;
  keyless: boolean;
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  label: string;
}

/** Operations of an OpenAPI 3 document (as built by http/openapi.ts). */
export function operationsOf(doc: { paths: Record<string, Record<string, any>> }): Operation[] {
  const out: Operation[] = [];
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const params = (op.parameters ?? []) as { name: string; in: string }[];
      const content = op.requestBody?.content ?? {};
      const json = content['application/json']?.schema;
      out.push({
        method: method.toUpperCase(),
        path: p,
        pathParams: params.filter((x) => x.in === 'path').map((x) => x.name),
        queryParams: params.filter((x) => x.in === 'query').map((x) => x.name),
        bodyFields: json ? Object.keys(json.properties ?? {}) : undefined,
        rawBody: 'application/octet-stream' in content,
        keyless: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  return out;
}

/** encodeURIComponent of any string (lone surrogates replaced first: it would throw on them). */
const enc = (s: string) => encodeURIComponent(Buffer.from(s, 'utf8').toString('utf8')); // the round trip makes lone surrogates U+FFFD

const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;

/** A path segment as sent on the wire (already encoded, or deliberately badly encoded). */
const segment = fc.oneof(
  fc.constantFrom(
    '%ZZ',
    '%E0%A4%A',
    '%ff%',
    '%',
    '%00',
    '%2e%2e',
    '%2F',
    '..',
    '.',
    '__proto__',
    'constructor',
    'x'.repeat(3000),
    '%C0%AF',
    '%F0%9F%98',
    '%u0041',
  ),
  fc.string({ maxLength: 40 }).map(enc),
  fc.string({ unit: 'binary', maxLength: 20 }).map(enc),
  fc.constantFrom(
    'vol_00000000-0000-0000-0000-000000000000',
    'box_00000000-0000-0000-0000-000000000000',
    'inbox_00000000-0000-0000-0000-000000000000',
    'A_SECRET',
    '1',
    '-1',
    '0',
  ),
);

/** A query value as sent on the wire. */
const queryValue = fc.oneof(
  fc.constantFrom(
    '',
    '-1',
    '0',
    '1e309',
    'NaN',
    'true',
    'null',
    '[]',
    '{}',
    '%ZZ',
    '%E0%A4%A',
    '0x10',
    '99999999999999999999',
    '4755',
    '..',
    '/../etc',
    'x'.repeat(5000),
    '%00',
  ),
  fc.string({ maxLength: 30 }).map(enc),
  fc.integer().map(String),
);

const wrongValue = fc.oneof(
  fc.constantFrom<unknown>(null, true, -1, 1e308, '', 'x'.repeat(70_000), [], {}, [[[[]]]], { __proto__x: 1 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** A JSON body text: wrong types per declared field, or hostile as a whole. */
const bodyText = (fields: string[]) =>
  fc.oneof(
    fields.length ? fc.dictionary(fc.constantFrom(...fields, 'unknown_field'), wrongValue, { maxKeys: 4 }).map((o) => JSON.stringify(o)) : fc.constant('{}'),
    fc.constantFrom(
      deep(5000),
      `[${'['.repeat(20000)}${']'.repeat(20000)}]`,
      '{"__proto__":{"polluted":true}}',
      `{"${fields[0] ?? 'a'}":{"__proto__":{"x":1}}}`,
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"a":',
      'null',
      '[]',
      '"x"',
      '1',
      '\uFEFF{}',
      '{"a":"\uD800"}',
      `{"${fields[0] ?? 'a'}":"${'y'.repeat(600_000)}"}`,
    ),
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  );

/** Arbitrary hostile requests for one operation. */
export function requestsFor(op: Operation, base: string, key: string): fc.Arbitrary<FuzzRequest> {
  const segs = fc.tuple(...op.pathParams.map(() => segment));
  const query = fc.array(fc.tuple(fc.constantFrom(...(op.queryParams.length ? op.queryParams : ['x'])), queryValue), { maxLength: 4 });
  const body: fc.Arbitrary<{ text?: string | Uint8Array; type?: string }> = op.rawBody
    ? fc.uint8Array({ maxLength: 2048 }).map((b) => ({ text: b }))
    : op.bodyFields
      ? fc.record({
          text: bodyText(op.bodyFields),
          type: fc.constantFrom('application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded'),
        })
      : fc.constant({});
  const auth = fc.constantFrom('key', 'key', 'key', 'key', 'none', 'bad');
  return fc.record({ segs, query, body, auth }).map(({ segs: vals, query: q, body: b, auth: a }) => {
    let i = 0;
    const p = op.path.replace(/\{[^}]+\}/g, () => vals[i++] ?? 'x');
    const qs = q.map(([k, v]) => `${k}=${v}`).join('&');
    const headers: Record<string, string> = {};
    if (a === 'key') headers.authorization = `Bearer ${key}`;
    if (a === 'bad') headers.authorization = 'Bearer bxk_not_a_key';
    if (b.type) headers['content-type'] = b.type;
    const text = op.method === 'GET' || op.method === 'DELETE' ? undefined : b.text;
    return { method: op.method, url: `${base}${p}${qs ? `?${qs}` : ''}`, headers, body: text, label: `${op.method} ${op.path}` };
  });
}
