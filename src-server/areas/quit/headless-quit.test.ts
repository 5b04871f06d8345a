import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

// The headless service says what quitting does: in its banner, and on SIGTERM before it stops.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-headless-quit-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it('prints the on_quit rule at start, and what it does on SIGTERM', async () => {
  const key = 'bxk_headless_quit_test_000000000000000000';
  const child = spawn(process.execPath, ['src-server/headless.ts', '--port', '0', '--data-dir', dataDir, '--web-ui', path.join(dataDir, 'no-ui')], {
    cwd: ROOT,
    env: { ...process.env, BOX_API_KEY: key, BOX_TEMPLATES: '0', HOME: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  try {
    const deadline = Date.now() + 60_000;
    while (!/On Ctrl\+C or SIGTERM/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(out).toContain('On Ctrl+C or SIGTERM: running boxes are put to sleep first (memory saved; each wakes on its next use) (setting on_quit: ask;');
    const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
    const set = await fetch(`${url}/v1/service/settings`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ on_quit: 'leave_running' }),
    });
    expect(await set.json()).toEqual({ on_quit: 'leave_running' });
    child.kill('SIGTERM');
    expect(await exited, `the service's output:\n${out}`).toBe(0);
    expect(out).toContain('SIGTERM: No box is running; quitting just stops the service.');
    expect(out).toContain('Box service stopped.');
    expect(fs.existsSync(path.join(dataDir, 'endpoint.json'))).toBe(false);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}, 90_000);
