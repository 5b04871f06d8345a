/**
 * Run by temp-dirs.test.ts as a test file of its own: makes temp dirs the three ways code
 * does (fs.mkdtempSync, a named import of it, fs.promises.mkdtemp) and one outside the temp
 * dir, and writes their paths where the outer test reads them.
 */
import fs, { mkdtempSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';

it('makes temp dirs', async () => {
  const made = [
    fs.mkdtempSync(path.join(os.tmpdir(), 'bx-tdcheck-')),
    mkdtempSync('/tmp/bx-tdcheck-'),
    await mkdtemp(path.join(os.tmpdir(), 'bx-tdcheck-')),
    await fs.promises.mkdtemp('/tmp/bx-tdcheck-'),
  ];
  for (const d of made) fs.writeFileSync(path.join(d, 'f'), 'x');
  const outside = fs.mkdtempSync(path.join(process.env.BOX_TDCHECK_OUTSIDE!, 'kept-'));
  fs.writeFileSync(process.env.BOX_TDCHECK_OUT!, JSON.stringify({ made, outside }));
  expect(made.every((d) => fs.existsSync(d))).toBe(true);
});
