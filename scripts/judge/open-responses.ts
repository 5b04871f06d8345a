/**
 * The judge of the agent gateway (issue 34): the Open Responses compliance suite
 * (github.com/openresponses/openresponses, `bin/compliance-test.ts`) against a service
 * started from this checkout on a fresh temp data dir, model `box/echo`. Not run by CI
 * (the suite is third-party code: it is never vendored here; check it out yourself).
 *
 *   git clone https://github.com/openresponses/openresponses /somewhere/openresponses
 *   git -C /somewhere/openresponses checkout <SUITE_COMMIT below>
 *   (cd /somewhere/openresponses && bun install)      # or npm install
 *   npx tsx scripts/judge/open-responses.ts /somewhere/openresponses [--filter id,id]
 *
 * The suite's path may also come from OPEN_RESPONSES_SUITE. A checkout at another commit
 * is refused (results would not compare) unless OPEN_RESPONSES_ANY_COMMIT=1. The suite
 * runs under `bun` when installed, else this checkout's `tsx`. Prints one line per test and exits 1
 * when any failed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startService } from '../../src-server/service.js';

/** The suite commit these results are recorded against (BENCHMARKS.md, "Open Responses compliance"). */
const SUITE_COMMIT = '18e565604fdf7a08ad3a06bbc30d1ddaee999ea4';
const MODEL = 'box/echo';

interface SuiteResult {
  id: string;
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  errors?: string[];
}

function fail(msg: string): never {
  console.error(`open-responses judge: ${msg}`);
  process.exit(2);
}

function suiteDir(): string {
  const first = process.argv[2];
  const dir = first && !first.startsWith('--') ? first : process.env.OPEN_RESPONSES_SUITE;
  if (!dir) fail('give the suite checkout as the first argument or in OPEN_RESPONSES_SUITE.');
  const abs = path.resolve(dir);
  if (!fs.existsSync(path.join(abs, 'bin', 'compliance-test.ts'))) fail(`${abs} has no bin/compliance-test.ts: not an openresponses checkout.`);
  let head = '';
  try {
    head = execFileSync('git', ['-C', abs, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    fail(`${abs} is not a git checkout: its commit cannot be checked.`);
  }
  if (head !== SUITE_COMMIT && process.env.OPEN_RESPONSES_ANY_COMMIT !== '1') {
    fail(`${abs} is at ${head}; the judge is pinned to ${SUITE_COMMIT} (git checkout it, or set OPEN_RESPONSES_ANY_COMMIT=1).`);
  }
  if (!fs.existsSync(path.join(abs, 'node_modules'))) fail(`${abs} has no node_modules: run "bun install" (or "npm install") there first.`);
  console.log(`suite: ${abs} at ${head}`);
  return abs;
}

function runner(): [string, string[]] {
  try {
    execFileSync('bun', ['--version'], { stdio: 'ignore' });
    return ['bun', ['run']];
  } catch {
    return [path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../node_modules/.bin/tsx'), []];
  }
}

async function main() {
  const dir = suiteDir();
  const filterAt = process.argv.indexOf('--filter');
  const filter = filterAt > 0 ? ['--filter', process.argv[filterAt + 1] ?? ''] : [];
  process.env.BOX_IMAGE_CACHE ??= path.join(os.tmpdir(), 'box-image-cache'); // as the benches: one shared image cache
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-judge-'));
  const key = `bxk_judge_${randomBytes(12).toString('hex')}`;
  const svc = await startService({ dataDir, apiKey: key, tuning: { prepareTemplates: false }, log: { info() {}, warn() {}, error: console.error } });
  console.log(`service: ${svc.url} (data dir ${dataDir}), model ${MODEL}\n`);
  try {
    const [cmd, pre] = runner();
    const args = [...pre, 'bin/compliance-test.ts', '--base-url', `${svc.url}/v1`, '--api-key', key, '--model', MODEL, '--json', ...filter];
    const child = spawn(cmd, args, { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    await new Promise((resolve) => child.on('close', resolve));
    const start = out.indexOf('{');
    if (start < 0) throw new Error(`the suite printed no JSON:\n${out}`);
    const report = JSON.parse(out.slice(start)) as { summary: Record<string, number>; results: SuiteResult[] };
    for (const r of report.results) {
      console.log(`${r.status.padEnd(7)} ${r.id}`);
      if (r.status === 'failed') for (const e of r.errors ?? []) console.log(`          ${e.slice(0, 300)}`);
    }
    const s = report.summary;
    console.log(
      `\n${s.passed} passed, ${s.failed} failed, ${s.skipped ?? 0} skipped, of ${s.total} (${new Date().toISOString().slice(0, 10)}, suite ${SUITE_COMMIT.slice(0, 12)})`,
    );
    process.exitCode = s.failed ? 1 : 0;
  } finally {
    await svc.close();
    // A background image build may still be writing its part file: retry the removal briefly.
    for (let i = 0; i < 10 && fs.existsSync(dataDir); i++) {
      fs.rmSync(dataDir, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}

await main();
