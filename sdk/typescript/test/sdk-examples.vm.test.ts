/**
 * The README's two SDK examples (issue 26), exactly as written there, on real VMs: the
 * TypeScript one under Node with the packed @box-desktop/sdk installed in an empty folder,
 * the Python one with box-desktop installed offline into a venv of Debian's python3. One
 * service for both; each example makes two boxes (a box and its fork) and terminates them.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { installPythonSdk } from '../../../scripts/python-sdk.js';
import { startTestService, type TestService } from '../../../src-server/test-support/harness.js';
import { packAndInstall, readmeExample } from './pack.js';

const VM_TIMEOUT = 600_000;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'box-sdk-examples-'));
let svc: TestService;
let app: string;
let python: string;

beforeAll(async () => {
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxsdk-') });
  app = packAndInstall(tmp).app;
  python = installPythonSdk(tmp);
}, VM_TIMEOUT);
afterAll(async () => {
  for (const b of (await (await svc.api('/v1/boxes?limit=100')).json()).data ?? []) {
    if (b.status !== 'terminated') await svc.api(`/v1/boxes/${b.box_id}/terminate`, { method: 'POST' });
  }
  await svc?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}, VM_TIMEOUT);

/** Runs a program the way a user would: the service found through BOX_URL and BOX_API_KEY. */
const run = (cmd: string, args: string[], cwd: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(cmd, args, { cwd, env: { ...process.env, BOX_URL: svc.url, BOX_API_KEY: svc.key }, timeout: VM_TIMEOUT }, (e, stdout, stderr) =>
      resolve({ code: e ? Number(e.code ?? 1) : 0, stdout, stderr }),
    ),
  );

const liveBoxes = async () =>
  ((await (await svc.api('/v1/boxes?limit=100')).json()).data as { name: string; status: string }[])
    .filter((b) => b.status !== 'terminated')
    .map((b) => b.name);

it(
  'the TypeScript example runs as written (Node, the packed SDK)',
  async () => {
    fs.writeFileSync(path.join(app, 'example.mjs'), readmeExample('ts'));
    const r = await run(process.execPath, ['example.mjs'], app);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\n2\n3\nhi\n42\n');
    expect(await liveBoxes()).toEqual([]);
  },
  VM_TIMEOUT,
);

it(
  'the Python example runs as written (Debian python3, the installed box-desktop)',
  async () => {
    fs.writeFileSync(path.join(tmp, 'example.py'), readmeExample('py'));
    const r = await run(python, ['example.py'], tmp);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\n2\n3\n');
    expect(await liveBoxes()).toEqual([]);
  },
  VM_TIMEOUT,
);
