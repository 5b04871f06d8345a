/**
 * Runs e2b-dev/code-interpreter's js/tests against a service started from this checkout (real
 * microVMs, the template with its warm kernel, a fresh data dir): each test file on its own
 * with vitest, the stock `@e2b/code-interpreter` in place of the repository's `src`, then one
 * line per file. Started by scripts/judge/e2b-code-interpreter.sh (argument: the tests' js/
 * folder, then optionally the files to run).
 *
 * Left out: tests/sandboxUrl.test.ts (builds URLs, never reaches a service) and
 * tests/runtimes (Bun and Deno, not installed here).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { startTestService, templatesReady } from '../../src-server/test-support/harness.js';

const js = process.argv[2];
if (!js || !existsSync(join(js, 'tests/setup.ts'))) throw new Error('usage: e2b-code-interpreter-run.ts <js folder of e2b-dev/code-interpreter> [test files]');
const project = resolve(dirname(new URL(import.meta.url).pathname), '../..');
const sdk = createRequire(join(project, 'package.json')).resolve('@e2b/code-interpreter');
const LEFT_OUT = [/^tests\/sandboxUrl\.test\.ts$/, /^tests\/runtimes\//];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );
}
const asked = process.argv.slice(3);
const files = (asked.length ? asked : testFiles(join(js, 'tests')).map((f) => relative(js, f))).filter((f) => !LEFT_OUT.some((r) => r.test(f))).sort();

// the tests import the SDK as '../src' (or '../../src'): the published package instead; vitest
// and e2b resolve from this checkout's node_modules
// (a link left by another checkout, perhaps gone since, is replaced: this checkout's modules run)
rmSync(join(js, 'node_modules'), { force: true });
symlinkSync(join(project, 'node_modules'), join(js, 'node_modules'));
const config = join(js, 'box-judge.config.mts');
writeFileSync(
  config,
  `export default {
  resolve: { alias: [{ find: /^(\\.\\.\\/)+src$/, replacement: ${JSON.stringify(sdk)} }] },
  test: { include: ['tests/**/*.test.ts'], testTimeout: 600000, hookTimeout: 600000, fileParallelism: false, maxWorkers: 1 },
};
`,
);

process.env.BOX_CODE_WARM = '1'; // the template's warm kernel, as E2B's code-interpreter-v1 has it
const svc = await startTestService({ dataDir: mkdtempSync(join(tmpdir(), 'box-judge-e2b-ci-')), tuning: { prepareTemplates: true } });
const rows: string[] = [];
try {
  await templatesReady(svc);
  const env = { ...process.env, E2B_API_URL: `${svc.url}/e2b/api`, E2B_SANDBOX_URL: `${svc.url}/e2b/sandbox`, E2B_API_KEY: svc.key };
  const out = mkdtempSync(join(tmpdir(), 'box-judge-e2b-ci-out-'));
  for (const file of files) {
    const report = join(out, `${file.replace(/\W/g, '_')}.json`);
    const t0 = Date.now();
    // Not spawnSync: the service runs in this process and must keep answering.
    const child = spawn(
      process.execPath,
      [join(project, 'node_modules/vitest/vitest.mjs'), 'run', '--config', config, '--reporter=json', `--outputFile=${report}`, file],
      { cwd: js, env, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    await once(child, 'exit');
    const secs = ((Date.now() - t0) / 1000).toFixed(0);
    let tests: { title: string; status: string; failureMessages: string[] }[] = [];
    try {
      tests = (JSON.parse(readFileSync(report, 'utf8')) as { testResults: { assertionResults: typeof tests }[] }).testResults.flatMap(
        (r) => r.assertionResults,
      );
    } catch {
      rows.push(`${file} | 0 | 0 | no report (${secs} s)`);
      continue;
    }
    const ran = tests.filter((t) => t.status === 'passed' || t.status === 'failed');
    const failed = ran.filter((t) => t.status === 'failed');
    const why = failed.map((t) => `${t.title}: ${(t.failureMessages[0] ?? '').split('\n')[0]!.slice(0, 140)}`).join('; ');
    rows.push(`${file} | ${ran.length} | ${ran.length - failed.length} | ${why} (${secs} s)`);
    console.log(rows.at(-1));
  }
  rmSync(out, { recursive: true, force: true });
} finally {
  await svc.close();
}
console.log('\nfile | tests run | passed | failures');
for (const r of rows) console.log(r);
const total = rows.map((r) => r.split(' | ').slice(1, 3).map(Number)).reduce((a, [n, p]) => [a[0]! + n!, a[1]! + p!], [0, 0]);
console.log(`total | ${total[0]} | ${total[1]} |`);
