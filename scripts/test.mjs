#!/usr/bin/env node
// `npm test`: the typecheck and the linters (each counts as one test), unit + route +
// real-VM tests (vitest), the Python SDK's pytest suite, the electron-vite build, then e2e (Playwright in Debian's
// chromium; a test that only passed on retry counts as failed). Prints one closing line
// "N passed, N failed". See docs/architecture.md, "Guardrails".
import { spawn, spawnSync } from 'node:child_process';
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
// vitest runs in its own process group. Once it has written its report it has finished; if it
// then does not exit (a handle left open keeps its main process alive), it is ended after a
// grace period and the report counts, so a stuck exit cannot hang CI.
let vStatus = await new Promise((resolve) => {
  const child = spawn('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`], {
    stdio: 'inherit',
    detached: true,
    env: { ...process.env, BOX_IMAGE_CACHE: imageCache },
  });
  let reportedAt = 0;
  const poll = setInterval(() => {
    if (!reportedAt && fs.existsSync(vitestJson)) reportedAt = Date.now();
    if (reportedAt && Date.now() - reportedAt > 90_000) {
      console.error('vitest wrote its report but did not exit within 90 s: ending it');
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }, 1000);
  child.on('exit', (code) => {
    clearInterval(poll);
    resolve(code ?? 1);
  });
});
const v = read(vitestJson);
if (v && vStatus !== 0 && v.success) vStatus = 0;
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
  // BOX_CODE_WARM=0: templates without the code kernel, except e2e/code.spec.ts's (vitest.config.ts says why)
  const pStatus = run('npx', ['playwright', 'test'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson,
    BOX_IMAGE_CACHE: imageCache,
    BOX_CODE_WARM: process.env.BOX_CODE_WARM ?? '0',
  });
  const p = read(pwJson);
  if (p?.stats) {
    passed += p.stats.expected;
    failed += p.stats.unexpected + (p.stats.flaky ?? 0);
    skipped += p.stats.skipped;
  } else if (pStatus !== 0) failed += 1;
}

console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 && vStatus === 0 ? 0 : 1);
