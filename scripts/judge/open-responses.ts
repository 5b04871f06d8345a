/**
 * The judge of the agent gateway (issue 34): the Open Responses compliance suite
 * (github.com/openresponses/openresponses, `bin/compliance-test.ts`) against a service
 * started from this checkout on a fresh temp data dir, model `box/echo` (or a scripted
 * upstream with --upstream). Not run by CI (the suite is third-party code: it is never
 * vendored here; get it yourself, outside this repository).
 *
 *   git clone https://github.com/openresponses/openresponses /somewhere/openresponses
 *   git -C /somewhere/openresponses checkout <SUITE_COMMIT below>
 *   (cd /somewhere/openresponses && bun install)      # or npm install
 *   npx tsx scripts/judge/open-responses.ts /somewhere/openresponses [--filter id,id] [--upstream]
 *
 * Where the repository cannot be cloned, a reassembled copy is accepted instead: a folder
 * whose suite files hash to SUITE_FILES below (BENCHMARKS.md, "Open Responses compliance",
 * says how that copy was made). The suite's path may also come from OPEN_RESPONSES_SUITE.
 * Any other checkout is refused (results would not compare) unless
 * OPEN_RESPONSES_ANY_COMMIT=1. The suite runs under `bun` (on PATH or in the suite's
 * node_modules/.bin), else this checkout's `tsx`. Prints one line per test and exits 1 when
 * any failed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeUpstream, type FakeUpstream } from '../../src-server/areas/inference/test-support/fake-upstreams.js';
import { startService } from '../../src-server/service.js';

/** The suite commit these results are recorded against (BENCHMARKS.md, "Open Responses compliance"). */
const SUITE_COMMIT = '18e565604fdf7a08ad3a06bbc30d1ddaee999ea4';
/**
 * The reassembled suite (the WebSocket and compaction era, 17 tests; spec 2026-04-24 at
 * 1e33c10fb3c19480751658eae966dad8e9c91514): SHA-256 of the files that decide the results.
 */
const SUITE_FILES: Record<string, string> = {
  'bin/compliance-test.ts': '3623f5fc7ad4139b1468882b3cadc8d4d03009f611f07e952854ce056b9499a6',
  'src/lib/compliance-tests.ts': '63b5e6595ac831ee74b8e887af76c28d69aee8e2ec7d9e99dc688eec4bccb7fb',
  'src/lib/sse-parser.ts': 'd597a1b5b76c1fb018b62bca28e2140ab75658c2460e85ee024a691249480174',
};

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

function suiteDir(): { dir: string; head: string } {
  const first = process.argv[2];
  const dir = first && !first.startsWith('--') ? first : process.env.OPEN_RESPONSES_SUITE;
  if (!dir) fail('give the suite checkout as the first argument or in OPEN_RESPONSES_SUITE.');
  const abs = path.resolve(dir);
  if (!fs.existsSync(path.join(abs, 'bin', 'compliance-test.ts'))) fail(`${abs} has no bin/compliance-test.ts: not an openresponses checkout.`);
  const mismatched = Object.entries(SUITE_FILES).filter(([f, sum]) => {
    const file = path.join(abs, f);
    return !fs.existsSync(file) || createHash('sha256').update(fs.readFileSync(file)).digest('hex') !== sum;
  });
  let head: string;
  try {
    head = execFileSync('git', ['-C', abs, 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    head = mismatched.length === 0 ? 'reassembled' : '';
  }
  if (head !== SUITE_COMMIT && mismatched.length > 0 && process.env.OPEN_RESPONSES_ANY_COMMIT !== '1') {
    fail(
      `${abs} is at ${head || 'no git commit'} and its ${mismatched.map(([f]) => f).join(', ')} differ from the pinned suite; ` +
        `the judge is pinned to ${SUITE_COMMIT} or the reassembled files (set OPEN_RESPONSES_ANY_COMMIT=1 to run anyway).`,
    );
  }
  if (!fs.existsSync(path.join(abs, 'node_modules'))) fail(`${abs} has no node_modules: run "bun install" (or "npm install") there first.`);
  console.log(`suite: ${abs} at ${head}`);
  return { dir: abs, head };
}

function runner(dir: string): [string, string[]] {
  for (const bun of ['bun', path.join(dir, 'node_modules', '.bin', 'bun')]) {
    try {
      execFileSync(bun, ['--version'], { stdio: 'ignore' });
      return [bun, ['run']];
    } catch {
      // next
    }
  }
  return [path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../node_modules/.bin/tsx'), []];
}

async function main() {
  const { dir, head } = suiteDir();
  const filterAt = process.argv.indexOf('--filter');
  const filter = filterAt > 0 ? ['--filter', process.argv[filterAt + 1] ?? ''] : [];
  process.env.BOX_IMAGE_CACHE ??= path.join(os.tmpdir(), 'box-image-cache'); // as the benches: one shared image cache
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-judge-'));
  const key = `bxk_judge_${randomBytes(12).toString('hex')}`;
  const svc = await startService({ dataDir, apiKey: key, tuning: { prepareTemplates: false }, log: { info() {}, warn() {}, error: console.error } });
  // --upstream openai|anthropic: the model is a scripted upstream of that style behind the gateway (fake-upstreams.ts).
  const upAt = process.argv.indexOf('--upstream');
  const upKind = upAt > 0 ? process.argv[upAt + 1] : undefined;
  if (upKind !== undefined && upKind !== 'openai' && upKind !== 'anthropic') fail('--upstream takes openai or anthropic.');
  let upstream: FakeUpstream | undefined;
  let MODEL = 'box/echo';
  if (upKind) {
    upstream = await startFakeUpstream(upKind);
    const r = await fetch(`${svc.url}/v1/engines`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'scripted', kind: upKind, base_url: upstream.url }),
    });
    if (!r.ok) fail(`registering the scripted upstream: HTTP ${r.status} ${await r.text()}`);
    MODEL = `scripted/fake-${upKind}`;
  }
  console.log(`service: ${svc.url} (data dir ${dataDir}), model ${MODEL}${upstream ? ` (scripted ${upKind} upstream ${upstream.url})` : ''}\n`);
  try {
    const [cmd, pre] = runner(dir);
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
      `\n${s.passed} passed, ${s.failed} failed, ${s.skipped ?? 0} skipped, of ${s.total} (${new Date().toISOString().slice(0, 10)}, suite ${head}, model ${MODEL})`,
    );
    process.exitCode = s.failed ? 1 : 0;
  } finally {
    await svc.close();
    await upstream?.close();
    // A background image build may still be writing its part file: retry the removal briefly.
    for (let i = 0; i < 10 && fs.existsSync(dataDir); i++) {
      fs.rmSync(dataDir, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}

await main();
