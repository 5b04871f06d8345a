import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pinnedFetch } from '../sdk/typescript/src/tls.js';
import { runCli } from '../src-cli/test-support/cli.js';
import { canMakeNetns, makeNetns, spawnHeadless, type Headless, type Netns } from '../src-server/test-support/netns.js';
import { BoxesPage } from './pages/boxes-page.js';
import { VolumesPage } from './pages/volumes-page.js';
import { expect, screenshot, test } from './support/fixtures.js';
import { RENDERER_DIR } from './support/service.js';

/*
 * Issue 39, contexts in the app. Two services on this machine: the local one (loopback, the
 * web UI) and a "remote" one inside a network namespace this test makes, on TLS at its
 * non-loopback address, each with its own HOME and data dir, both spawned as users run them.
 * The real CLI saves the remote as a context (pinning its certificate); the app, in
 * Chromium, switches to it in the sidebar and works there (a box created, a file uploaded
 * and downloaded, a shell), then back. A context whose certificate changed is refused with
 * the message naming both fingerprints. A Host neither service serves gets 403 (Chromium
 * resolves the rebinding names to their addresses, as a DNS rebinding attack would).
 */
const LOCAL_KEY = 'bxk_app_ctx_local_0000000000000000000';
const REMOTE_KEY = 'bxk_app_ctx_remote_000000000000000000';
const REBIND_LOCAL = 'rebind-local.attacker.test';
const REBIND_REMOTE = 'rebind-remote.attacker.test';

let ns: Netns | undefined;
let local: Headless | undefined;
let remote: Headless | undefined;
let home = '';
// chosen before the browser starts: its resolver maps the rebinding names here
const nsTag = 100 + (process.pid % 100);
const nsAddr = `10.213.${nsTag}.2`;

test.skip(!canMakeNetns(), 'needs root to make a network namespace');
test.describe.configure({ mode: 'serial' });
test.setTimeout(900_000);
test.use({
  ignoreHTTPSErrors: true,
  launchOptions: {
    executablePath: process.env.BOX_E2E_CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
      `--host-resolver-rules=MAP ${REBIND_LOCAL} 127.0.0.1, MAP ${REBIND_REMOTE} ${nsAddr}`,
    ],
  },
});

const cli = (args: string[], input?: string) => runCli({ HOME: home, BOX_DATA_DIR: '', BOX_API_KEY: LOCAL_KEY }, args, { input });
const contextsFile = () => path.join(home, '.box-desktop', 'contexts.json');

test.beforeAll(async () => {
  test.setTimeout(300_000);
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'box-e2e-ctx-'));
  ns = makeNetns(nsTag);
  const env = { HOME: home, BOX_IMAGE_CACHE: process.env.BOX_IMAGE_CACHE ?? path.resolve('.data/image-cache') };
  [local, remote] = await Promise.all([
    spawnHeadless({ args: ['--port', '0', '--data-dir', path.join(home, 'local'), '--web-ui', RENDERER_DIR], env: { ...env, BOX_API_KEY: LOCAL_KEY } }),
    spawnHeadless({
      args: ['--listen', `${ns.nsAddr}:8443`, '--data-dir', path.join(home, 'remote'), '--web-ui', 'none'],
      env: { ...env, HOME: path.join(home, 'remote-home'), BOX_API_KEY: REMOTE_KEY },
      netns: ns.name,
    }),
  ]);
  // the real CLI pins the remote's certificate (no terminal: taken as shown, as a script would)
  const add = await cli(['context', 'add', 'team', remote.url, '--yes'], `${REMOTE_KEY}\n`);
  expect(add.code, add.stderr).toBe(0);
  expect(add.stderr).toContain(`has SHA-256 fingerprint ${remote.fingerprint}`);
  // a second context to the same service whose certificate "changed" since it was pinned
  const data = JSON.parse(fs.readFileSync(contextsFile(), 'utf8')) as { contexts: Record<string, { tls_fingerprint: string }> };
  data.contexts.moved = { ...data.contexts.team!, tls_fingerprint: 'AB:'.repeat(31) + 'AB' };
  fs.writeFileSync(contextsFile(), JSON.stringify(data), { mode: 0o600 });
  // something to tell the two services apart: a volume on the remote only
  const f = pinnedFetch({ fingerprint: remote.fingerprint! });
  const vol = await f(`${remote.url}/v1/box-volumes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${REMOTE_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'only-on-remote' }),
  });
  expect(vol.status, await vol.clone().text()).toBeLessThan(300);
});

test.afterAll(async () => {
  if (remote) {
    // the boxes this test made on the remote end with it (no QEMU outlives the file)
    const f = pinnedFetch({ fingerprint: remote.fingerprint! });
    const auth = { authorization: `Bearer ${REMOTE_KEY}`, 'content-type': 'application/json' };
    const list = (await (await f(`${remote.url}/v1/boxes?limit=100`, { headers: auth })).json().catch(() => ({}))) as {
      data?: Array<{ box_id: string; status: string }>;
    };
    for (const b of list.data ?? [])
      if (b.status !== 'terminated') await f(`${remote.url}/v1/boxes/${b.box_id}/terminate`, { method: 'POST', headers: auth, body: '{}' });
  }
  await Promise.all([local?.stop(), remote?.stop()]);
  ns?.destroy();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

async function signIn(page: import('@playwright/test').Page) {
  const link = (await (await fetch(`${local!.url}/v1/ui/login-links`, { method: 'POST', headers: { authorization: `Bearer ${LOCAL_KEY}` } })).json()) as {
    url: string;
  };
  await page.goto(link.url);
  await expect(page.getByTestId('service-status')).toContainText('service');
}

const switcher = (page: import('@playwright/test').Page) => page.getByRole('combobox', { name: 'Service' });

test('the sidebar switches to a saved context and every view works there: volumes, a new box, upload, download, terminal; then back', async ({ page }) => {
  await signIn(page);
  const volumes = new VolumesPage(page);
  await expect(switcher(page)).toHaveValue('local');
  await expect(switcher(page).locator('option')).toHaveText(['local (this machine)', `moved · ${nsAddr}:8443`, `team · ${nsAddr}:8443`]);
  // the page never sees a key: the list has names, URLs and fingerprints
  const listed = await page.evaluate(() => fetch('/ui/contexts').then((r) => r.text()));
  expect(listed).toContain(remote!.fingerprint!);
  expect(listed).not.toContain(REMOTE_KEY);

  await page.goto(`${local!.url}/#/volumes`);
  await expect(page.getByText('No volumes yet').or(page.getByTestId('volume-list'))).toBeVisible();
  await expect(page.getByText('only-on-remote')).toHaveCount(0);

  await switcher(page).selectOption('team');
  await expect(page.getByTestId('service-remote')).toContainText(remote!.url);
  await expect(switcher(page)).toHaveValue('team');
  await page.goto(`${local!.url}/#/volumes`);
  await expect(page.getByText('only-on-remote').first()).toBeVisible();

  // a box made from the app lives on the remote
  await page.goto(`${local!.url}/#/boxes`);
  const boxes = new BoxesPage(page);
  await boxes.create('far-box', { app: 'ctx-e2e' });
  const boxId = /#\/boxes\/([^/]+)/.exec(page.url())![1]!;
  const f = pinnedFetch({ fingerprint: remote!.fingerprint! });
  const onRemote = await f(`${remote!.url}/v1/boxes/${boxId}`, { headers: { authorization: `Bearer ${REMOTE_KEY}` } });
  expect(onRemote.status).toBe(200);
  expect((await fetch(`${local!.url}/v1/boxes/${boxId}`, { headers: { authorization: `Bearer ${LOCAL_KEY}` } })).status).toBe(404);

  // upload (drop) and download through the local service's forward
  await page.goto(`${local!.url}/#/boxes/${boxId}/files`);
  await expect(page.getByTestId('breadcrumbs')).toContainText('root', { timeout: 60_000 });
  const bytes = randomBytes(300_000);
  await volumes.drop(await volumes.dataTransfer([{ name: 'far.bin', bytes }]));
  await expect(volumes.transfer('far.bin')).toHaveAttribute('data-status', 'done', { timeout: 120_000 });
  const download = page.waitForEvent('download');
  await volumes.entry('far.bin').getByTestId('entry-download').click();
  expect(Buffer.compare(fs.readFileSync(await (await download).path()), bytes)).toBe(0);

  // the terminal: a shell on the remote box, over the forwarded stream
  await page.goto(`${local!.url}/#/boxes/${boxId}/terminal`);
  await boxes.openShell();
  await boxes.type('echo far-$((6*7)) && sha256sum /root/far.bin | cut -c1-16');
  await expect(boxes.terminalText()).toContainText('far-42', { timeout: 120_000 });
  const { createHash } = await import('node:crypto');
  await expect(boxes.terminalText()).toContainText(createHash('sha256').update(bytes).digest('hex').slice(0, 16));
  await screenshot(page, 'context-remote-terminal');

  // back to the local service: the remote's box and volume are not there
  await switcher(page).selectOption('local');
  await expect(switcher(page)).toHaveValue('local');
  await expect(page.getByTestId('service-remote')).toHaveCount(0);
  await page.goto(`${local!.url}/#/volumes`);
  await expect(page.getByText('No volumes yet').or(page.getByTestId('volume-list'))).toBeVisible();
  await expect(page.getByText('only-on-remote')).toHaveCount(0);
  await page.goto(`${local!.url}/#/boxes`);
  await expect(page.getByText('far-box')).toHaveCount(0);
});

test('a context whose certificate is not the pinned one is refused with both fingerprints; the app stays where it was', async ({ page }) => {
  await signIn(page);
  await switcher(page).selectOption('moved');
  const alert = page.getByTestId('service-switch-error');
  await expect(alert).toContainText('is not the one pinned for it');
  await expect(alert).toContainText(`presented ${remote!.fingerprint}`);
  await expect(alert).toContainText('npx box context rm moved');
  await screenshot(page, 'context-pin-refused');
  await page.reload();
  await expect(switcher(page)).toHaveValue('local');
});

test('a Host the service does not serve gets 403 in the browser (DNS rebinding), locally and on the remote', async ({ page }) => {
  const port = new URL(local!.url).port;
  const here = await page.goto(`http://${REBIND_LOCAL}:${port}/v1/health`);
  expect(here!.status()).toBe(403);
  expect(await here!.text()).toContain(`Host \\"${REBIND_LOCAL}:${port}\\" is not allowed`);
  const there = await page.goto(`https://${REBIND_REMOTE}:8443/v1/health`);
  expect(there!.status()).toBe(403);
  expect(await there!.text()).toContain('host_not_allowed');
  // the names the services do serve answer
  expect((await page.goto(`${local!.url}/v1/health`))!.status()).toBe(200);
  expect((await page.goto(`${remote!.url}/v1/health`))!.status()).toBe(200);
});
