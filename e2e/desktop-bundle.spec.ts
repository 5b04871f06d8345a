import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import vm from 'node:vm';
import os from 'node:os';
import path from 'node:path';
import { readExecStream } from '../src-server/test-support/exec-stream.js';
import { expect, test } from './support/fixtures.js';

/**
 * The desktop app as built (out/main/index.js, the bundle `npm start` gives Electron), run
 * under plain Node with `electron` resolved to a stand-in (support/electron-stub): Electron
 * cannot run on the CI machines, and a bundle can fail where the sources under tsx work
 * (an external import hoisted above the code it needs; paths computed from the bundle's
 * own location). The app must start its in-process service, open its window on the
 * sign-in link, run a real box, answer IPC from its own page only, quit through its quit
 * dialog with the box put to sleep, and find it asleep on the next start.
 */
const BUNDLE = path.resolve('out/main/index.js');
const STUB = path.resolve('e2e/support/electron-stub/register.mjs');
const PRELOAD = path.resolve('out/preload/index.cjs');

type Line = { event: string; [k: string]: unknown };

function launch(home: string) {
  const lines: Line[] = [];
  let stderr = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', STUB, BUNDLE], {
    env: {
      ...process.env,
      BOX_STUB_HOME: home,
      BOX_DATA_DIR: path.join(home, 'data'),
      BOX_IMAGE_CACHE: process.env.BOX_IMAGE_CACHE ?? path.resolve('.data/image-cache'),
      BOX_WARM_POOL: '0',
      BOX_STUB_DIALOG_RESPONSE: '0', // "Put them to sleep and quit"
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i; (i = buf.indexOf('\n')) >= 0; buf = buf.slice(i + 1)) {
      const l = buf.slice(0, i);
      if (l.startsWith('{')) lines.push(JSON.parse(l) as Line);
    }
  });
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  /** The first line of `event`; fails with the app's stderr when it exits or times out first. */
  const next = async (event: string, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = lines.find((l) => l.event === event);
      if (line) return line;
      if (child.exitCode !== null) throw new Error(`the app exited (${child.exitCode}) before "${event}":\n${stderr}`);
      if (Date.now() > deadline) throw new Error(`no "${event}" from the app in ${timeoutMs} ms:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { child, lines, next, exited, stderr: () => stderr };
}

/** POST with a JSON body, or GET without one; fails the test on an error status. */
const client = (origin: string, key: string) => async (p: string, json?: unknown) => {
  const res = await fetch(`${origin}${p}`, {
    method: json === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  expect(res.ok, `${p}: ${res.status}`).toBe(true);
  return res;
};

/** A shell command's stdout through the exec stream; it must succeed. */
async function run(api: ReturnType<typeof client>, boxId: string, command: string) {
  const { exit, stdout } = readExecStream(await (await api(`/v1/boxes/${boxId}/exec`, { command })).text());
  expect(exit?.status).toBe('succeeded');
  return stdout;
}

test.setTimeout(600_000);

test('desktop bundle: service, sign-in window, a real box, IPC for its own page only, quit with the box asleep, awake on the next start', async ({ page }) => {
  expect(fs.existsSync(BUNDLE), 'out/main/index.js: run `npm run build` first').toBe(true);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'box-desktop-'));
  const app = launch(home);
  const apps = [app];
  try {
    expect((await app.next('ipc')).channel).toBe('box-desktop:invoke');
    const win = await app.next('window');
    expect(win.sandbox).toBe(true);
    expect(fs.existsSync(String(win.preload)), 'the preload the window names exists').toBe(true);
    const url = String((await app.next('loadURL')).url);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/login\?token=/);
    expect(
      app.lines.some((l) => l.event === 'error'),
      app.stderr(),
    ).toBe(false);

    // The window's page, in a real browser: signs in and shows the UI the bundle serves.
    await page.goto(url);
    await expect(page.getByTestId('service-status')).toContainText('service');

    // A real box through the app's own service (its guest recipe and agent found from the bundle).
    const key = fs.readFileSync(path.join(home, 'data', 'api-key'), 'utf8').trim();
    const api = client(new URL(url).origin, key);
    const appId = ((await (await api('/v1/apps/find', { name: 'desktop', mint_if_missing: true })).json()) as { id: string }).id;
    const box = (await (await api('/v1/boxes', { app_id: appId, name: 'from-desktop' })).json()) as { box_id: string; status: string };
    expect(box.status).toBe('running');
    expect(await run(api, box.box_id, 'hostname; echo desktop-$((6*7)) | tee /root/mark')).toBe('from-desktop\ndesktop-42\n');

    // The window's IPC bridge: answers the app's own page only.
    const ipc = async (pageUrl: string, channel: string, args: unknown = null) => {
      const before = app.lines.length;
      app.child.stdin!.write(`ipc ${pageUrl} ${channel} ${JSON.stringify(args)}\n`);
      await expect.poll(() => app.lines.slice(before).find((l) => l.event === 'ipc-result')).toBeTruthy();
      return app.lines.slice(before).find((l) => l.event === 'ipc-result')!.envelope as { ok: boolean; result?: unknown; error?: { message: string } };
    };
    const origin = new URL(url).origin;
    expect(await ipc(`${origin}/ui/boxes`, 'service:state')).toEqual({ ok: true, result: { running: true, url: origin, dataDir: path.join(home, 'data') } });
    expect(await ipc(`${origin}/ui/settings`, 'clipboard:copy-api-key')).toEqual({ ok: true, result: true });
    expect(app.lines.find((l) => l.event === 'clipboard')?.text).toBe(key);
    expect(await ipc('http://evil.example/', 'service:state')).toEqual({ ok: false, error: { message: 'IPC refused: the caller is not the app window.' } });
    expect(await ipc(`${origin}/ui/boxes`, 'fs:read')).toEqual({ ok: false, error: { message: 'Unknown IPC channel fs:read' } });

    // Quit as the menu does: one box runs, so the app asks; the stand-in answers "sleep".
    app.child.stdin!.write('quit\n');
    expect(String((await app.next('dialog')).message)).toBe('1 box is running. What should happen to it?');
    await app.next('quit', 120_000);
    expect(await app.exited).toBe(0);
    // Asleep: its VM has exited with its memory saved, nothing of this app still runs.
    const left = spawnSync('pgrep', ['-f', home], { encoding: 'utf8' }).stdout.trim();
    expect(left, 'processes left running from the app').toBe('');

    // The next start finds the box asleep, and an exec wakes it with its files.
    const again = launch(home);
    apps.push(again);
    const api2 = client(new URL(String((await again.next('loadURL')).url)).origin, key);
    const got = (await (await api2(`/v1/boxes/${box.box_id}`)).json()) as { status: string };
    expect(got.status).toBe('sleeping');
    expect(await run(api2, box.box_id, 'cat /root/mark')).toBe('desktop-42\n');
    again.child.stdin!.write('quit\n');
    await again.next('dialog');
    expect(await again.exited).toBe(0);
  } finally {
    for (const a of apps) if (a.child.exitCode === null) a.child.kill('SIGKILL');
    spawnSync('pkill', ['-9', '-f', home]);
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test('desktop preload as built: a script a sandboxed renderer can run, needing only electron, exposing boxDesktop', async () => {
  // A sandboxed preload is a plain script: no ES module syntax, and `require` gives only a
  // few modules (electron among them); the window is created with sandbox: true.
  const required: string[] = [];
  const exposed: Record<string, { invoke(c: string, a?: unknown): Promise<unknown>; platform: string }> = {};
  const sent: unknown[][] = [];
  const electron = {
    contextBridge: { exposeInMainWorld: (name: string, api: never) => (exposed[name] = api) },
    ipcRenderer: { invoke: async (...a: unknown[]) => (sent.push(a), { ok: true, result: 'pong' }) },
  };
  const require = (m: string) => {
    required.push(m);
    if (m !== 'electron') throw new Error(`a sandboxed preload cannot require ${m}`);
    return electron;
  };
  vm.runInNewContext(
    fs.readFileSync(PRELOAD, 'utf8'),
    { require, process: { platform: 'linux' }, module: { exports: {} }, exports: {} },
    { filename: PRELOAD },
  );
  expect(required).toEqual(['electron']);
  expect(Object.keys(exposed)).toEqual(['boxDesktop']);
  // its promises are the sandbox's: adopted into this realm's before expect looks at them
  await expect(Promise.resolve(exposed.boxDesktop!.invoke('service:state'))).resolves.toBe('pong');
  expect(sent).toEqual([['box-desktop:invoke', 'service:state', undefined]]);
  await expect(Promise.resolve(exposed.boxDesktop!.invoke('fs:read'))).rejects.toThrow('Unknown desktop channel fs:read');
});
