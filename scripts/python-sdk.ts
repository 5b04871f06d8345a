/**
 * The Python SDK's tests against a real service (npm test runs this; scripts/test.mjs counts
 * its JUnit report). Installs sdk/python the way its README says, offline, into a venv of
 * Debian's /usr/bin/python3 with --system-site-packages (httpx, pytest and setuptools come
 * from Debian packages: scripts/debian-packages.txt), starts the service (real HTTP, SQLite,
 * every area; fake VMs: the README examples run on real VMs in sdk-examples.vm.test.ts) and
 * runs pytest on the installed package. pytest's exit 5 (no tests ran) is a failure.
 *
 *   npx tsx scripts/python-sdk.ts [--junit report.xml]
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
export const SYSTEM_PYTHON = process.env.BOX_SDK_PYTHON ?? '/usr/bin/python3';

/** A venv with the SDK installed from a copy of sdk/python (pip builds in the tree it installs). Answers its python. */
export function installPythonSdk(dir: string): string {
  const venv = path.join(dir, 'venv');
  execFileSync(SYSTEM_PYTHON, ['-m', 'venv', '--system-site-packages', venv], { stdio: 'inherit' });
  const src = path.join(dir, 'sdk-python');
  fs.cpSync(path.join(ROOT, 'sdk/python'), src, { recursive: true, filter: (p) => !/(__pycache__|\.egg-info|\/build)$/.test(p) });
  execFileSync(path.join(venv, 'bin/pip'), ['install', '-q', '--no-build-isolation', '--no-index', src], { stdio: 'inherit' });
  return path.join(venv, 'bin/python');
}

async function main() {
  const i = process.argv.indexOf('--junit');
  const junit = i > 0 ? path.resolve(process.argv[i + 1]!) : undefined;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'box-py-sdk-'));
  const { startTestService } = await import('../src-server/test-support/harness.js');
  const { FakeRuntime } = await import('../src-server/test-support/fake-runtime.js');
  let code: number;
  try {
    const python = installPythonSdk(tmp);
    const svc = await startTestService({ runtime: (d) => new FakeRuntime(d), dataDir: path.join(tmp, 'data') });
    // a second one on HTTPS with its own certificate: the contexts tests pin it (tests/test_contexts.py)
    const tlsSvc = await startTestService({
      runtime: (d) => new FakeRuntime(d),
      dataDir: path.join(tmp, 'data-tls'),
      tls: true,
      apiKey: 'bxk_python_sdk_tls_0000000000000000000',
    });
    const tlsEnv = {
      BOX_TLS_URL: tlsSvc.url,
      BOX_TLS_KEY: tlsSvc.key,
      BOX_TLS_FINGERPRINT: tlsSvc.ctx.config.tls!.fingerprint,
      BOX_NODE: process.execPath,
      BOX_ROOT: ROOT,
    };
    try {
      const args = ['-m', 'pytest', path.join(ROOT, 'sdk/python/tests'), '-q', '-p', 'no:cacheprovider', ...(junit ? [`--junitxml=${junit}`] : [])];
      code = await new Promise<number>((resolve) =>
        spawn(python, args, { stdio: 'inherit', cwd: tmp, env: { ...process.env, BOX_URL: svc.url, BOX_API_KEY: svc.key, ...tlsEnv } }).on('exit', (c) =>
          resolve(c ?? 1),
        ),
      );
    } finally {
      await Promise.all([svc.close(), tlsSvc.close()]);
    }
    if (code === 5) console.error('python-sdk: pytest collected no tests; that is a failure');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  process.exit(code === 0 ? 0 : 1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) await main();
