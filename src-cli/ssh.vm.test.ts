/**
 * Real microVM: `box ssh enable` installs the org CA in the box, starts sshd and publishes
 * port 22; `box ssh connect` then logs in with a certificate of that CA and runs a command.
 * Also `box image build` / `box image list` against the real cached image. One VM.
 * Needs the networking area's listeners (POST /v1/boxes/{id}/listeners).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testImage, testImageCache } from '../src-server/areas/runtime/test-support/vm-image.js';
import { startTestService, type TestService } from '../src-server/test-support/harness.js';
import { runCli } from './test-support/cli.js';

const VM_TIMEOUT = 300_000;

let svc: TestService;
let env: Record<string, string>;
const tmp = fs.mkdtempSync('/tmp/bxssh-cli-');
const key = path.join(tmp, 'id_ed25519');
const box = (args: string[], o?: Parameters<typeof runCli>[2]) => runCli(env, args, { timeoutMs: VM_TIMEOUT, ...o });

beforeAll(async () => {
  const cache = testImageCache();
  await testImage(tmp);
  svc = await startTestService({ dataDir: fs.mkdtempSync('/tmp/bxssh-') });
  env = { BOX_URL: svc.url, BOX_API_KEY: svc.key, BOX_DATA_DIR: svc.dataDir, BOX_IMAGE_CACHE: cache };
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
}, VM_TIMEOUT);
afterAll(async () => {
  if (svc) {
    for (const b of (await (await svc.api('/v1/boxes?limit=100')).json()).data ?? []) await svc.api(`/v1/boxes/${b.box_id}/terminate`, { method: 'POST' });
    await svc.close();
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}, VM_TIMEOUT);

describe('box image (local, real cache)', () => {
  it(
    'build answers the cached image at once; list marks it current',
    async () => {
      const b = await box(['image', 'build', '--json', '--no-agent']);
      expect(b.code, b.stderr).toBe(0);
      const built = JSON.parse(b.stdout);
      expect(built).toMatchObject({ name: 'debian', cached: true });
      expect(fs.existsSync(built.rootfs)).toBe(true);
      expect(b.stderr).toMatch(/\[#{30}\] 100% done: guest image cached/);
      const l = JSON.parse((await box(['image', 'cache', '--json'])).stdout);
      expect(l.images.find((i: { current: boolean }) => i.current)).toMatchObject({ recipe: built.recipeHash, parts_present: true });
    },
    VM_TIMEOUT,
  );
});

/** Runs a shell line without blocking: the service lives in this process and must keep answering. */
function bash(line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', line], { env: { ...process.env, ...env }, cwd: path.resolve(import.meta.dirname, '..') });
    let text = '';
    child.stdout.on('data', (b: Buffer) => (text += b.toString()));
    child.stderr.on('data', (b: Buffer) => (text += b.toString()));
    const t = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', () => (clearTimeout(t), resolve(text)));
  });
}

let boxReady: Promise<void> | undefined;
/** The one VM of this file, created through the CLI on first use. */
const ensureBox = () =>
  (boxReady ??= box(['boxes', 'create', 'sshvm', '--json']).then((created) => {
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout).status).toBe('running');
  }));

describe('box exec --tty (real VM)', () => {
  it(
    'gives the command a terminal of the local size, passes keys through, restores and exits with the code',
    async () => {
      await ensureBox();
      const cmd = `stty cols 100 rows 30; ${process.execPath} bin/box.mjs exec sshvm --tty -- 'tty; stty size; read x; echo "got:$x"; exit 5'`;
      const out = await bash(`(sleep 4; printf 'hello\\r') | script -qec "${cmd.replace(/["$\\]/g, '\\$&')}" /dev/null; echo "rc=$?"`);
      expect(out).toMatch(/\/dev\/pts\/\d+/);
      expect(out).toContain('30 100');
      expect(out).toContain('got:hello');
      expect(out).toMatch(/rc=5\s*$/);
    },
    VM_TIMEOUT,
  );
});

describe('box ssh (real VM)', () => {
  it(
    'enable, then connect with a CA certificate and run echo ok',
    async () => {
      await ensureBox();

      const enabled = await box(['ssh', 'enable', 'sshvm', '--json']);
      expect(enabled.code, enabled.stderr).toBe(0);
      const info = JSON.parse(enabled.stdout);
      expect(info).toMatchObject({ sshd: 'started', host: '127.0.0.1' });
      expect(info.port).toBeGreaterThan(0);
      const ca = (await box(['ssh', 'ca'])).stdout.trim();
      expect((await box(['cp', 'sshvm:/etc/ssh/box_ca.pub', '-'])).stdout.trim()).toBe(ca);

      // No certificate yet: a plain key is refused, so the CA is what lets us in.
      const plain = await bash(
        `ssh -p ${info.port} -i ${key} -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null root@127.0.0.1 echo ok 2>&1; echo "rc=$?"`,
      );
      expect(plain).toMatch(/Permission denied[\s\S]*rc=255/);

      const conn = await box(['ssh', 'connect', 'sshvm', '--key', key, '--', 'echo', 'ok']);
      expect(conn.code, conn.stderr).toBe(0);
      expect(conn.stdout).toBe('ok\n');
      expect(conn.stderr).toContain(`ssh -p ${info.port} -i ${key} -o CertificateFile=${key}-cert.pub`);
      expect(conn.stderr).toContain('StrictHostKeyChecking=yes');
      expect(fs.existsSync(`${key}-cert.pub`)).toBe(true);

      // Enabling again reloads sshd and reuses the published port.
      const again = await box(['ssh', 'enable', 'sshvm', '--json']);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ sshd: 'reloaded', port: info.port });
      const code = await box(['ssh', 'connect', 'sshvm', '--key', key, '--', 'exit 7']);
      expect(code.code).toBe(7);
    },
    VM_TIMEOUT,
  );
});
