import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../../src-cli/config.js';
import { FakeRuntime } from '../../../src-server/test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../../src-server/test-support/harness.js';
import { generate } from '../scripts/gen-types.js';
import { resolveConfig } from '../src/config.js';

// The published package: its types are current with the contract, `npm pack` gives compiled
// JavaScript and .d.ts with no dependency, it installs offline in an empty folder, runs on
// the oldest Node it allows (Debian's Node 20 here, else the current one) and typechecks.
const SDK = path.resolve(import.meta.dirname, '..');
const ROOT = path.resolve(SDK, '../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'box-sdk-pack-'));
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
});
afterAll(async () => {
  await svc?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Debian's /usr/bin/node (20 on the project machines) when there is one. */
const oldNode = fs.existsSync('/usr/bin/node') ? '/usr/bin/node' : process.execPath;

it('src/types.ts is what the contract prints (npx tsx sdk/typescript/scripts/gen-types.ts rewrites it)', async () => {
  expect(fs.readFileSync(path.join(SDK, 'src/types.ts'), 'utf8')).toBe(await generate());
});

it('finds the service as the CLI does: BOX_URL, BOX_API_KEY, the endpoint and key files', () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'data-'));
  const cases: Record<string, string | undefined>[] = [
    { BOX_URL: 'http://127.0.0.1:1234/', BOX_API_KEY: ' bxk_a ', BOX_DATA_DIR: dir },
    { BOX_DATA_DIR: dir },
    { HOME: dir },
  ];
  fs.writeFileSync(path.join(dir, 'api-key'), 'bxk_from_file\n');
  const other = fs.mkdtempSync(path.join(tmp, 'other-'));
  fs.writeFileSync(path.join(other, 'api-key'), 'bxk_other\n');
  for (const env of cases) {
    const cli = loadConfig(env as NodeJS.ProcessEnv);
    expect(resolveConfig({}, env)).toMatchObject({ url: cli.url, apiKey: cli.apiKey });
  }
  // a running service's endpoint file (its pid alive: ours) points at another data dir
  fs.writeFileSync(path.join(dir, 'endpoint.json'), JSON.stringify({ url: 'http://127.0.0.1:4321', data_dir: other, pid: process.pid }));
  const cli = loadConfig({ BOX_DATA_DIR: dir });
  expect(resolveConfig({}, { BOX_DATA_DIR: dir })).toMatchObject({ url: cli.url, apiKey: cli.apiKey });
  expect(cli).toMatchObject({ url: 'http://127.0.0.1:4321', apiKey: 'bxk_other' });
  expect(resolveConfig({ url: 'http://x:1', apiKey: 'k' }, { BOX_DATA_DIR: dir })).toMatchObject({ url: 'http://x:1', apiKey: 'k' });
});

it('npm pack → install offline in an empty folder → runs on Node 20 and typechecks', async () => {
  execFileSync('npm', ['pack', '--pack-destination', tmp], { cwd: SDK, stdio: 'pipe' });
  const tgz = fs.readdirSync(tmp).find((f) => f.endsWith('.tgz'))!;
  expect(tgz).toBe('box-desktop-sdk-0.1.0.tgz');
  const listing = execFileSync('tar', ['tzf', path.join(tmp, tgz)], { encoding: 'utf8' });
  expect(listing).toContain('package/dist/index.js');
  expect(listing).toContain('package/dist/index.d.ts');
  for (const f of listing.trim().split('\n')) expect(f).toMatch(/^package\/(dist\/[a-z]+\.(js|d\.ts)|package\.json|README\.md)$/);
  const app = path.join(tmp, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), '{"name":"app","private":true,"type":"module"}');
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(tmp, tgz)], { cwd: app, stdio: 'pipe' });
  expect(fs.readdirSync(path.join(app, 'node_modules'))).toEqual(['.package-lock.json', '@box-desktop']); // no dependencies
  fs.writeFileSync(
    path.join(app, 'main.ts'),
    `import { BoxClient, NotFoundError, type BoxInfo, type ExecResult } from '@box-desktop/sdk';
const client = new BoxClient();
const box = await client.boxes.create({ name: 'packed', size: 's' });
const info: BoxInfo = box.info;
const r: ExecResult = await box.exec(['echo', process.version]);
await box.files.write('/root/p.txt', new Uint8Array([104, 105]));
const text: string = await box.files.readText('/root/p.txt');
const missing = await client.boxes.get('nope').catch((e: unknown) => e instanceof NotFoundError);
console.log(JSON.stringify({ status: info.status, out: r.stdout.trim(), code: r.exitCode, text, missing }));
await box.terminate();
`,
  );
  // the consumer's typecheck: strict, the package's own .d.ts only (no zod, no contract)
  execFileSync(
    path.join(ROOT, 'node_modules/.bin/tsc'),
    [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--types',
      'node',
      '--typeRoots',
      path.join(ROOT, 'node_modules/@types'),
      'main.ts',
    ],
    { cwd: app, stdio: 'pipe' },
  );
  fs.copyFileSync(path.join(app, 'main.ts'), path.join(app, 'main.mjs'));
  fs.writeFileSync(
    path.join(app, 'main.mjs'),
    fs
      .readFileSync(path.join(app, 'main.ts'), 'utf8')
      .replace(/: (BoxInfo|ExecResult|string|unknown)/g, '')
      .replace(', type BoxInfo, type ExecResult', ''),
  );
  const out = await new Promise<string>((resolve, reject) =>
    execFile(oldNode, ['main.mjs'], { cwd: app, env: { ...process.env, BOX_URL: svc.url, BOX_API_KEY: svc.key } }, (e, stdout, stderr) =>
      e ? reject(new Error(`${e.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
  const major = execFileSync(oldNode, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim();
  expect(JSON.parse(out)).toEqual({
    status: 'running',
    out: `v${execFileSync(oldNode, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()}`,
    code: 0,
    text: 'hi',
    missing: true,
  });
  expect(Number(major)).toBeGreaterThanOrEqual(20);
}, 180_000);
