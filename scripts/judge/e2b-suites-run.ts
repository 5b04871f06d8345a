/**
 * Runs test files of E2B's JS SDK (extracted by scripts/judge/e2b-suites.sh into a folder outside
 * the project) against a service started from this checkout with real boxes, one file at a time,
 * and prints one line per file (tests passed, failed, skipped) and the first line of each failure.
 *
 * Only configuration differs from E2B's own runs: a vitest config written next to the tests
 * aliases E2B's `src` imports to the published `e2b` package in node_modules, sets the three
 * variables and gives TCG longer timeouts. For getHost(port) (https at Box's ingress, at
 * `<port>-<id>.box.localhost`), the workers resolve `*.localhost` to the loopback address
 * (localhost-resolver.mjs: what systemd-resolved gives a desktop; glibc here lacks it) and trust
 * the service's serving CA (NODE_EXTRA_CA_CERTS). Between files every sandbox left over is killed.
 *
 * Usage: tsx scripts/judge/e2b-suites-run.ts <extracted js-sdk folder> [files or folders under tests/ ...]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Sandbox } from 'e2b';
import { startService } from '../../src-server/service.js';

/** The files that reach a service (no mocked network, no pure functions) in the areas issue 33 names. */
const DEFAULT = [
  'api/info.test.ts',
  'api/kill.test.ts',
  'api/list.test.ts',
  'api/snapshot.test.ts',
  'sandbox/create.test.ts',
  'sandbox/connect.test.ts',
  'sandbox/kill.test.ts',
  'sandbox/timeout.test.ts',
  'sandbox/fork.test.ts',
  'sandbox/snapshot.test.ts',
  'sandbox/snapshot-api.test.ts',
  'sandbox/secure.test.ts',
  'sandbox/commands',
  'sandbox/files',
  'sandbox/pty',
  'sandbox/git',
];
/** Unit tests of the SDK's own classes (they import its internals, reach no service). */
const UNIT = new Set([
  'sandbox/commands/commandHandle.test.ts',
  'sandbox/files/entryInfo.test.ts',
  'sandbox/files/watchHandle.test.ts',
  'sandbox/git/validation.test.ts',
]);

const dir = process.argv[2];
if (!dir || !fs.existsSync(path.join(dir, 'tests/setup.ts'))) throw new Error('usage: e2b-suites-run.ts <extracted js-sdk folder> [files...]');
const tests = path.join(dir, 'tests');
const expand = (p: string): string[] =>
  fs.statSync(path.join(tests, p)).isDirectory()
    ? fs
        .readdirSync(path.join(tests, p))
        .filter((f) => f.endsWith('.test.ts'))
        .sort()
        .map((f) => `${p}/${f}`)
    : [p];
const files = (process.argv.length > 3 ? process.argv.slice(3) : DEFAULT).flatMap(expand).filter((f) => !UNIT.has(f));

const entry = path.resolve('node_modules/e2b/dist/index.mjs');
fs.writeFileSync(
  path.join(dir, 'vitest.box-judge.config.mjs'),
  `// Written by Box's scripts/judge/e2b-suites-run.ts: E2B's sources are the published e2b package.
import { defineConfig } from 'vitest/config'
export default defineConfig({
  resolve: { alias: [{ find: /^(\\.\\.\\/)+src(\\/.*)?$/, replacement: ${JSON.stringify(entry)} }] },
  test: { include: ['tests/**/*.test.ts'], setupFiles: [${JSON.stringify(path.resolve('scripts/judge/localhost-resolver.mjs'))}], environment: 'node', testTimeout: 240000, hookTimeout: 600000, fileParallelism: false, maxWorkers: 1 },
})
`,
);

process.env.BOX_IMAGE_CACHE ??= path.join(os.tmpdir(), 'box-image-cache');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bxj-e2b-'));
const key = `bxk_judge_${Math.random().toString(36).slice(2, 14).padEnd(12, '0')}`;
const svc = await startService({ dataDir, apiKey: key, log: { info() {}, warn() {}, error() {} } });
const env: Record<string, string> = { E2B_API_URL: `${svc.url}/e2b/api`, E2B_SANDBOX_URL: `${svc.url}/e2b/sandbox`, E2B_API_KEY: key };
// getHost(port) is https at Box's ingress: the tests' fetch trusts the service's serving CA, as a user's system would
const servingCa = path.join(dataDir, 'tls', 'serving-ca.pem');
Object.assign(process.env, env);
console.log(`service ${svc.url} (data ${dataDir}); warming the template`);
const warm = await Sandbox.create({ requestTimeoutMs: 900_000 });
await warm.kill();
if (fs.existsSync(servingCa)) env.NODE_EXTRA_CA_CERTS = servingCa;

async function sweep() {
  const left = await Sandbox.list({ query: { state: ['running', 'paused'] } })
    .nextItems()
    .catch(() => []);
  for (const s of left) await Sandbox.kill(s.sandboxId).catch(() => {});
}

interface Report {
  testResults: Array<{ assertionResults: Array<{ fullName: string; status: string; failureMessages: string[] }> }>;
}
const rows: string[] = [];
for (const f of files) {
  const out = path.join(dataDir, `${f.replace(/\//g, '_')}.json`);
  const t0 = Date.now();
  const child = spawn(
    process.execPath,
    [
      path.resolve('node_modules/vitest/vitest.mjs'),
      'run',
      '--root',
      dir,
      '--config',
      'vitest.box-judge.config.mjs',
      `tests/${f}`,
      '--reporter=json',
      `--outputFile=${out}`,
    ],
    { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  await once(child, 'exit');
  const secs = Math.round((Date.now() - t0) / 1000);
  let report: Report | undefined;
  try {
    report = JSON.parse(fs.readFileSync(out, 'utf8')) as Report;
  } catch {
    report = undefined;
  }
  const all = report?.testResults.flatMap((r) => r.assertionResults) ?? [];
  const n = (s: string) => all.filter((a) => a.status === s).length;
  const line = `${f} | ${n('passed')} | ${n('failed')} | ${n('skipped') + n('pending') + n('todo')} | ${secs} s`;
  rows.push(line);
  console.log(line);
  if (!report) console.log(`   no report: ${stderr.trim().split('\n').slice(-5).join(' / ')}`);
  for (const a of all.filter((x) => x.status === 'failed'))
    console.log(`   FAIL ${a.fullName}: ${(a.failureMessages[0] ?? '').split('\n').slice(0, 2).join(' ').slice(0, 300)}`);
  await sweep();
}
await sweep();
await svc.close();
console.log(`\nfile | passed | failed | skipped | time\n${rows.join('\n')}`);
