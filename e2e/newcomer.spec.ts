import { generateKeyPairSync } from 'node:crypto';
import sshpk from 'sshpk';
import { PreparationTracker } from '../src-server/boxes/preparation.js';
import { slowImageRuntime } from '../src-server/test-support/slow-image-runtime.js';
import { AppPage } from './pages/app-page.js';
import { VolumesPage } from './pages/volumes-page.js';
import { E2E_KEY } from './support/service.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';

/**
 * A newcomer's first hour (issue 15) and the Secrets/SSH views (issue 13), in Chromium
 * against the real service. Boxes run on a fake runtime whose first create "builds the
 * guest image" for ~6 s with real progress events, so the first-box experience is
 * deterministic here; the QEMU runtime feeds the same tracker (src-server/modules.ts).
 */
const svc = serviceForFile(
  {},
  {
    start: () => {
      const preparation = new PreparationTracker();
      const Runtime = slowImageRuntime(preparation, 1500);
      return { runtime: (d: string) => new Runtime(d), preparation };
    },
  },
);

test('sign-in: a used link lands on a styled sign-in page that takes the API key', async ({ page }) => {
  const link = await svc().loginUrl();
  await page.goto(link);
  await expect(page.getByTestId('service-status')).toContainText('service');
  // The same link again, in a fresh browser context: no bare 401, a page that says why.
  const other = await page.context().browser()!.newContext({ colorScheme: 'dark' });
  const p2 = await other.newPage();
  await p2.goto(link);
  await expect(p2.getByTestId('signed-out')).toBeVisible();
  await expect(p2.getByTestId('signin-reason')).toContainText('already used or is older than 10 minutes');
  await expect(p2.getByText('npx box login-link')).toBeVisible();
  await expect(p2.getByTestId('signin-key')).toHaveAttribute('type', 'password');
  await p2.getByTestId('signin-key').fill('bxk_wrong');
  await p2.getByTestId('signin-submit').click();
  await expect(p2.getByTestId('signin-error')).toContainText('not valid');
  await screenshot(p2, 'signin');
  await p2.getByTestId('signin-key').fill(E2E_KEY);
  await p2.getByTestId('signin-submit').click();
  await expect(p2.getByTestId('view-boxes')).toBeVisible();
  await expect(p2.getByTestId('service-status')).toContainText('service');
  await other.close();
});

test('keyboard: Ctrl+K and New box focus their input; hints name Alt and Ctrl on Linux', async ({ page }) => {
  await login(page, svc());
  await expect(page.getByTestId('nav-hint').first()).toHaveText('Alt+1');
  await expect(page.getByTestId('palette-hint')).toHaveText('Ctrl+K');
  await page.keyboard.press('Control+k');
  await expect(page.getByTestId('palette-input')).toBeFocused();
  await page.keyboard.type('secrets');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('view-secrets')).toBeVisible();
  await new AppPage(page).open('boxes');
  await page.getByTestId('box-new').click();
  await expect(page.getByTestId('box-name')).toBeFocused();
  await page.keyboard.type('typed-right-away');
  await expect(page.getByTestId('box-name')).toHaveValue('typed-right-away');
  await page.keyboard.press('Escape');
});

test('first box: image progress while it waits, a toast, the checklist ticks; terminate returns to the list', async ({ page }) => {
  await login(page, svc());
  await expect(page.getByTestId('checklist')).toBeVisible();
  await expect(page.getByTestId('checklist-box')).toHaveAttribute('data-done', 'false');
  await page.getByTestId('box-new').click();
  const dialog = page.getByTestId('create-box-dialog');
  await dialog.getByTestId('box-name').fill('first');
  await dialog.getByTestId('create-box-submit').click();
  // The guest image stage shows with a percentage, what it is doing and time left.
  const stage = dialog.getByTestId('preparation-image');
  await expect(stage).toBeVisible();
  await expect(stage).toContainText(/\d+% · (about|usually about)/);
  await expect(stage).toContainText(/Debian root filesystem|kernel|initrd/);
  await screenshot(page, 'boxes-first-box-progress');
  await expect(page.getByTestId('box-title')).toHaveText('first', { timeout: 60_000 });
  await expect(page.getByTestId('toast').filter({ hasText: 'Box first is running' })).toBeVisible();
  await expect(page.getByText('RAM ·')).toBeVisible();

  // Terminate from the box's own page: back to the list with a notice, not a red 404.
  await page.getByTestId('action-terminate').click();
  await page.getByTestId('action-terminate').click();
  await expect(page.getByTestId('box-new')).toBeVisible();
  await expect(page.getByTestId('toast').filter({ hasText: 'Box first terminated' })).toBeVisible();
  await expect(page.getByTestId('error')).toHaveCount(0);
  await expect(page.getByTestId('checklist-box')).toHaveAttribute('data-done', 'true');
  await expect(page.getByTestId('checklist-image')).toHaveAttribute('data-done', 'true');
});

test('secrets: set one from a password field, see the policy that uses it, delete it', async ({ page }) => {
  const put = await svc().api('/v1/secrets/E2E_TOKEN', { method: 'PUT', json: { value: 'v0' } });
  expect(put.status).toBe(200);
  const pol = await svc().api('/v1/http-policies', {
    method: 'POST',
    json: {
      name: 'uses-token',
      document: {
        'api.example.com': { rules: [{ match: { method: 'GET' }, request: { set: { headers: { Authorization: 'Bearer ${secrets.E2E_TOKEN}' } } } }] },
      },
    },
  });
  expect(pol.status, await pol.clone().text()).toBe(200);
  await login(page, svc());
  await new AppPage(page).open('secrets');
  await expect(page.getByTestId('secret-value')).toHaveAttribute('type', 'password');
  await page.getByTestId('secret-name').fill('NEW_ONE');
  await page.getByTestId('secret-value').fill('s3cret-value');
  await page.getByTestId('secret-save').click();
  await expect(page.locator('[data-testid="secret-row"][data-name="NEW_ONE"]')).toBeVisible();
  await expect(page.getByText('s3cret-value')).toHaveCount(0);
  await expect(page.locator('[data-testid="secret-row"][data-name="E2E_TOKEN"] [data-testid="secret-policies"]')).toContainText('uses-token');
  await expect(page.locator('[data-testid="secret-row"][data-name="NEW_ONE"] [data-testid="secret-policies"]')).toContainText('none');
  // A bad name is refused beside the field before anything is sent.
  await page.getByTestId('secret-name').fill('1bad');
  await expect(page.getByTestId('secret-save')).toBeDisabled();
  await screenshot(page, 'secrets');
  const row = page.locator('[data-testid="secret-row"][data-name="NEW_ONE"]');
  await row.getByTestId('secret-delete').click();
  await row.getByTestId('secret-delete').click();
  await expect(row).toHaveCount(0);
  expect((await svc().api('/v1/secrets/NEW_ONE')).status).toBe(404);
});

test('ssh: the CA key, a certificate for a pasted public key, the CLI lines', async ({ page }) => {
  const ca = (await (await svc().api('/v1/ssh/ca')).json()) as { public_key: string };
  await login(page, svc());
  await new AppPage(page).open('ssh');
  await expect(page.getByTestId('ssh-ca-key')).toHaveText(ca.public_key);
  const { publicKey } = generateKeyPairSync('ed25519');
  const line = sshpk.parseKey(publicKey.export({ type: 'spki', format: 'pem' }), 'pem').toString('ssh');
  await page.getByTestId('ssh-pubkey').fill(`${line} e2e@test`);
  await page.getByTestId('ssh-issue-submit').click();
  await expect(page.getByTestId('ssh-cert-text')).toContainText('ssh-ed25519-cert-v01@openssh.com');
  // The certificate is signed by the CA shown above and names the pasted key.
  const cert = sshpk.parseCertificate((await page.getByTestId('ssh-cert-text').textContent())!.trim(), 'openssh');
  expect(cert.isSignedByKey(sshpk.parseKey(ca.public_key, 'ssh'))).toBe(true);
  expect(cert.subjectKey.fingerprint('sha256').toString()).toBe(sshpk.parseKey(line, 'ssh').fingerprint('sha256').toString());
  await expect(page.getByTestId('ssh-howto')).toContainText('npx box ssh enable <box>');
  await page.getByTestId('ssh-pubkey').fill('not a key');
  await page.getByTestId('ssh-issue-submit').click();
  await expect(page.getByTestId('ssh-issue').getByTestId('error')).toContainText('public_key');
  await screenshot(page, 'ssh');
});

test('1100 px wide: box and cron actions stay on screen; every view in the light theme', async ({ page }) => {
  const app = (await (await svc().api('/v1/apps/find', { method: 'POST', json: { name: 'narrow', mint_if_missing: true } })).json()) as { id: string };
  const box = (await (await svc().api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name: 'narrow-box' } })).json()) as { box_id: string };
  expect(
    (
      await svc().api(`/v1/boxes/${box.box_id}/cron`, {
        method: 'POST',
        json: { schedule: '*/5 * * * *', command: 'echo a-rather-long-command --with flags > /tmp/out.txt' },
      })
    ).status,
  ).toBe(200);
  await page.setViewportSize({ width: 1100, height: 800 });
  await login(page, svc());
  const row = page.locator('[data-testid="box-row"][data-name="narrow-box"]');
  await row.getByTestId('row-actions').click();
  await expect(row.getByTestId('action-terminate')).toBeInViewport({ ratio: 1 });
  await page.keyboard.press('Escape');
  await screenshot(page, 'narrow-boxes');
  await new AppPage(page).open('cron');
  await expect(page.getByTestId('cron-delete').first()).toBeInViewport({ ratio: 1 });
  await screenshot(page, 'narrow-cron');

  await page.emulateMedia({ colorScheme: 'light' });
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(bg).toBe('rgb(246, 247, 250)');
  for (const view of ['boxes', 'cron', 'volumes', 'policies', 'secrets', 'ssh', 'settings']) {
    await new AppPage(page).open(view);
    await screenshot(page, `light-${view}`);
  }
});

test('terminal: the shell and its scrollback survive switching tabs and views', async ({ page }) => {
  const app = (await (await svc().api('/v1/apps/find', { method: 'POST', json: { name: 'term', mint_if_missing: true } })).json()) as { id: string };
  const box = (await (await svc().api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name: 'term-box' } })).json()) as { box_id: string };
  await login(page, svc());
  await page.goto(`${svc().url}/#/boxes/${box.box_id}/terminal`);
  await page.getByTestId('terminal-connect').click();
  await expect(page.getByTestId('terminal-panel')).toHaveAttribute('data-state', 'open', { timeout: 30_000 });
  const text = page.locator('[data-testid="terminal"] .xterm-rows');
  await page.locator('[data-testid="terminal"] .xterm').click();
  // The fake runtime's shell is a host bash without a tty: Ctrl+J sends the newline a tty would make of Enter.
  await page.keyboard.type('MARK=$((6*7)); echo "mark-$MARK pid-$$"');
  await page.keyboard.press('Control+j');
  await expect(text).toContainText('mark-42 pid-');
  const pid = /pid-(\d+)/.exec((await text.textContent()) ?? '')![1];
  // Another tab, another view, back: same shell (same pid, variable kept), scrollback kept.
  await page.getByTestId('tab-metrics').click();
  await expect(page.getByTestId('metrics')).toBeVisible();
  await new AppPage(page).open('volumes');
  await page.goto(`${svc().url}/#/boxes/${box.box_id}/terminal`);
  await expect(page.getByTestId('terminal-panel')).toHaveAttribute('data-state', 'open');
  await expect(text).toContainText('mark-42');
  await page.locator('[data-testid="terminal"] .xterm').click();
  await page.keyboard.type('echo "again-$MARK pid-$$"');
  await page.keyboard.press('Control+j');
  await expect(text).toContainText(`again-42 pid-${pid}`);
  await page.getByTestId('terminal-close').click();
  await expect(page.getByText('No shell open.')).toBeVisible();
});

test('volume browser: new folder, rename, delete; unfinished uploads are hidden', async ({ page }) => {
  await login(page, svc());
  await new AppPage(page).open('volumes');
  const vols = new VolumesPage(page);
  await vols.create('ops-vol');
  const list = (await (await svc().api('/v1/box-volumes')).json()) as { data: Array<{ volume_id: string; name: string }> };
  const id = list.data.find((v) => v.name === 'ops-vol')!.volume_id;
  const put = await svc().api(`/v1/box-volumes/${id}/files?path=notes.txt`, {
    method: 'PUT',
    body: 'hello',
    headers: { 'content-type': 'application/octet-stream' },
  });
  expect(put.status).toBe(200);
  const fs = await import('node:fs');
  fs.writeFileSync(`${svc().dataDir}/volumes/${id}/data/.box-upload-1234`, 'partial');
  await page.reload();
  await expect(vols.entry('notes.txt')).toBeVisible();
  await expect(vols.entry('.box-upload-1234')).toHaveCount(0);

  await page.getByTestId('new-folder').click();
  await expect(page.getByTestId('new-folder-name')).toBeFocused();
  await page.keyboard.type('docs');
  await page.keyboard.press('Enter');
  await expect(vols.entry('docs')).toHaveAttribute('data-type', 'directory');

  await vols.entry('notes.txt').getByTestId('entry-rename').click();
  await page.getByTestId('rename-input').fill('renamed.txt');
  await page.keyboard.press('Enter');
  await expect(vols.entry('renamed.txt')).toBeVisible();
  await expect(vols.entry('notes.txt')).toHaveCount(0);
  await screenshot(page, 'volumes-ops');

  await vols.entry('renamed.txt').getByTestId('entry-delete').click();
  await vols.entry('renamed.txt').getByTestId('entry-delete').click();
  await expect(vols.entry('renamed.txt')).toHaveCount(0);
  expect((await svc().api(`/v1/box-volumes/${id}/paths?path=renamed.txt`)).status).toBe(404);
  expect((await svc().api(`/v1/box-volumes/${id}/paths?path=docs`)).status).toBe(200);
});
