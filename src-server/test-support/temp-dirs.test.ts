/**
 * The temp dirs a test file makes are gone when the file is done (temp-dirs.ts), and kept
 * with BOX_KEEP_TEST_DIRS=1; a dir made outside the temp dir is never touched. Runs
 * temp-dirs.check.ts as a vitest run of its own, with the project's setup file.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

function runCheck(keep: boolean): { made: string[]; outside: string } {
  const work = fs.mkdtempSync('/tmp/bx-tdwork-');
  const outsideRoot = path.join(ROOT, '.data', `tdcheck-${process.pid}`);
  fs.mkdirSync(outsideRoot, { recursive: true });
  const config = path.join(work, 'vitest.config.mjs');
  fs.writeFileSync(
    config,
    `export default { test: { root: ${JSON.stringify(ROOT)}, include: ['src-server/test-support/temp-dirs.check.ts'], setupFiles: ['src-server/test-support/temp-dirs.ts'], pool: 'forks' } };\n`,
  );
  const out = path.join(work, 'out.json');
  const r = spawnSync(path.join(ROOT, 'node_modules/.bin/vitest'), ['run', '--config', config], {
    cwd: ROOT,
    env: { ...process.env, BOX_TDCHECK_OUT: out, BOX_TDCHECK_OUTSIDE: outsideRoot, BOX_KEEP_TEST_DIRS: keep ? '1' : '' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(r.status, r.stdout + r.stderr).toBe(0);
  const seen = JSON.parse(fs.readFileSync(out, 'utf8')) as { made: string[]; outside: string };
  expect(seen.made).toHaveLength(4);
  expect(fs.existsSync(seen.outside), 'a dir outside the temp dir is left alone').toBe(true);
  fs.rmSync(outsideRoot, { recursive: true, force: true });
  return seen;
}

it('removes every temp dir a test file made once the file is done; BOX_KEEP_TEST_DIRS=1 keeps them', () => {
  const gone = runCheck(false);
  expect(gone.made.filter((d) => fs.existsSync(d))).toEqual([]);
  const kept = runCheck(true);
  expect(kept.made.filter((d) => fs.existsSync(d))).toEqual(kept.made);
  for (const d of kept.made) fs.rmSync(d, { recursive: true, force: true });
}, 240_000);
