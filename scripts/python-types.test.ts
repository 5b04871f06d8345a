import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ENTRIES, generate } from '../sdk/python/tools/gen-types.js';

const TYPES = path.resolve(import.meta.dirname, '../sdk/python/src/box_desktop/types.py');

it("the Python SDK's types.py is what the contract prints (npx tsx sdk/python/tools/gen-types.ts rewrites it)", () => {
  expect(fs.readFileSync(TYPES, 'utf8')).toBe(generate());
});

it('prints every entry, nested objects as their own TypedDicts, shared shapes by name', () => {
  const text = generate();
  for (const [name] of ENTRIES) expect(text).toMatch(new RegExp(`^(${name} = |class ${name}\\()`, 'm'));
  expect(text).toContain('"boxes": List[BoxInfo],'); // ForkResult refers to BoxInfo
  expect(text).toContain('"status": BoxStatus,');
  expect(text).toMatch(/^BoxInfoLastStart = TypedDict\("BoxInfoLastStart", \{\n(.*\n)*? {4}"from": Optional\[str\],/m);
  // CodeResult: one required key, MIME types (not Python names) optional
  expect(text).toMatch(/^_CodeResultOptional = TypedDict\("_CodeResultOptional", \{\n {4}"text\/plain": str,/m);
  expect(text).toContain('class CodeResult(_CodeResultRequired, _CodeResultOptional):');
});
