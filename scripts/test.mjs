#!/usr/bin/env node
// `npm test`: the typecheck and the linters (each counts as one test), unit + route +
// real-VM tests (vitest), the Python SDK's pytest suite, the electron-vite build, then e2e (Playwright in Debian's
// chromium; a test that only passed on retry counts as failed). Prints one closing line
// "N passed, N failed". See docs/architecture.md, "Guardrails".
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'box-test-report-'));
const run = (cmd, args, env = {}) => spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;
const read = (f) => (fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : null);

let passed = 0;
let failed = 0;
let skipped = 0;

// Static checks first: a type error or a lint finding is a failed test like any other.
for (const [cmd, args] of [
  ['npx', ['tsc', '--noEmit', '-p', 'tsconfig.json']],
  ['npm', ['run', 'lint']],
]) {
  if (run(cmd, args) === 0) passed += 1;
  else failed += 1;
}

// Share one guest image build across every VM test in this run.
const imageCache = process.env.BOX_IMAGE_CACHE ?? path.resolve('.data/image-cache');
const vitestJson = path.join(tmp, 'vitest.json');
const vStatus = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`], {
  BOX_IMAGE_CACHE: imageCache,
});
const v = read(vitestJson);
if (v) {
  passed += v.numPassedTests;
  failed += v.numFailedTests;
  skipped += v.numPendingTests + (v.numTodoTests ?? 0);
} else if (vStatus !== 0) failed += 1;

// The Python SDK's pytest suite against a real service, counted from its JUnit report
// (scripts/python-sdk.ts; pytest's exit 5, no tests collected, counts as a failure).
const pyJunit = path.join(tmp, 'pytest.xml');
const pyStatus = run('npx', ['tsx', 'scripts/python-sdk.ts', '--junit', pyJunit]);
const pyXml = fs.existsSync(pyJunit) ? fs.readFileSync(pyJunit, 'utf8') : '';
const pyCount = (name) => Number(new RegExp(`<testsuite\\b[^>]*\\b${name}="(\\d+)"`).exec(pyXml)?.[1] ?? 0);
const pyTests = pyCount('tests');
if (pyTests > 0) {
  const bad = pyCount('failures') + pyCount('errors');
  passed += pyTests - bad - pyCount('skipped');
  failed += bad;
  skipped += pyCount('skipped');
}
if (pyTests === 0 || (pyStatus !== 0 && pyCount('failures') + pyCount('errors') === 0)) failed += 1;

const bStatus = run('npx', ['electron-vite', 'build']);
if (bStatus === 0) passed += 1;
else failed += 1;

if (fs.existsSync('playwright.config.ts')) {
  const pwJson = path.join(tmp, 'playwright.json');
  const pStatus = run('npx', ['playwright', 'test'], { PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson, BOX_IMAGE_CACHE: imageCache });
  const p = read(pwJson);
  if (p?.stats) {
    passed += p.stats.expected;
    failed += p.stats.unexpected + (p.stats.flaky ?? 0);
    skipped += p.stats.skipped;
  } else if (pStatus !== 0) failed += 1;
}

console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 && vStatus === 0 ? 0 : 1);
