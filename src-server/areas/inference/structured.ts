import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { invalid } from '../../kernel/domain-errors.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: false, validateSchema: true }));
const cache = new Map<string, ValidateFunction>();
const CACHE_MAX = 256;

/**
 * A validator for a caller's JSON schema. Every structured output is checked with it:
 * constrained decoding alone ignores minimum/maximum/pattern and mishandles anyOf
 * (a known limit of grammar-based decoding). An uncompilable schema is the caller's 400, naming `param`.
 */
export function schemaValidator(schema: Record<string, unknown>, param: string): ValidateFunction {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) return hit;
  const { $schema: _ignored, ...body } = schema;
  let fn: ValidateFunction;
  try {
    fn = ajv.compile(body);
  } catch (e) {
    throw invalid(`${param} is not a usable JSON schema: ${(e as Error).message}`, param);
  }
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, fn);
  return fn;
}

/** null when `text` is JSON that satisfies the schema, else why not. */
export function checkStructured(validate: ValidateFunction, text: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return `the output is not JSON (${(e as Error).message})`;
  }
  if (validate(value)) return null;
  return `the output does not match the schema: ${ajv.errorsText(validate.errors)}`;
}
