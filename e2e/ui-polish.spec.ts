import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { expect, login, serviceForFile, test } from './support/fixtures.js';

/**
 * Issue 38 on a fake runtime (the checks are of the UI; the egress proxy is the real one):
 * Files as a tab of the box with a visible drop hint (item 8), the egress log's details with
 * the injected header and the upgrade to HTTPS (item 10), the checkpoint a box is on in the
 * lineage tree (item 12), and Settings in sections that fit at 760 px (item 5).
 */
const svc = serviceForFile({}, { start: () => ({ runtime: (d: string) => new FakeRuntime(d) }) });

async function post(p: string, json: unknown = {}) {
  const res = await svc().api(p, { method: 'POST', json });
  expect(res.status, p).toBe(200);
  return res.json();
}
let app: string;
const newBox = async (name: string, extra: Record<string, unknown> = {}) => {
  app ??= (await post('/v1/apps/find', { name: 'polish', mint_if_missing: true })).id;
  return (await post('/v1/boxes', { app_id: app, name, ...extra })) as { box_id: string; name: string };
};

test('Files is a tab of the box, says files can be dropped, and a drop uploads into the folder shown', async ({ page }) => {
  const box = await newBox('files-tab');
  await login(page, svc());
  await page.evaluate((h) => (location.hash = h), `#/boxes/${box.box_id}`);
  await page.getByTestId('tab-files').click();
  await expect(page.getByTestId('tab-files')).toHaveAttribute('aria-selected', 'true');
  const hint = page.getByTestId('drop-hint');
  await expect(hint).toBeVisible();
  await expect(hint).toContainText('Drop files or folders here');
  // A real drop (a DataTransfer with a file) uploads into the folder the hint names.
  const folder = (await hint.locator('.font-mono').textContent())!;
  const dt = await page.evaluateHandle(() => {
    const d = new DataTransfer();
    d.items.add(new File(['dropped in the tab\n'], 'dropped.txt', { type: 'text/plain' }));
    return d;
  });
  const zone = page.getByTestId('drop-zone');
  await zone.dispatchEvent('dragenter', { dataTransfer: dt });
  await zone.dispatchEvent('dragover', { dataTransfer: dt });
  await zone.dispatchEvent('drop', { dataTransfer: dt });
  await expect(page.getByTestId('entry').filter({ hasText: 'dropped.txt' })).toBeVisible();
  const got = await svc().api(`/v1/boxes/${box.box_id}/files?path=${encodeURIComponent(path.posix.join(folder, 'dropped.txt'))}`);
  expect(await got.text()).toBe('dropped in the tab\n');
});

test('the egress log opens a row: the injected secret header by name (never its value), and the upgrade of http:// to HTTPS', async ({ page }) => {
  expect((await svc().api('/v1/secrets/EXAMPLE_TOKEN', { method: 'PUT', json: { value: 'tok_never_shown_123' } })).status).toBe(200);
  const policy = (await post('/v1/http-policies', {
    name: 'example-with-token',
    document: { 'example.test': { rules: [{ request: { set: { headers: { authorization: 'Bearer ${secrets.EXAMPLE_TOKEN}' } } } }] } },
  })) as { id: string };
  const box = await newBox('egress-details', { http_policy_id: policy.id });
  // The box's own egress proxy (what its VM reaches at 10.0.2.100): a plain http:// request, as `curl http://example.test/` in the box sends it.
  const db = new Database(path.join(svc().dataDir, 'box.db'), { readonly: true });
  const port = (db.prepare('SELECT port FROM egress_ports WHERE box_id = ?').get(box.box_id) as { port: number }).port;
  db.close();
  const status = await new Promise<number>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: 'http://example.test/', headers: { host: 'example.test' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
  expect(status).toBeGreaterThanOrEqual(400); // example.test resolves nowhere: the point is what the log says

  await login(page, svc());
  await page.evaluate((h) => (location.hash = h), `#/boxes/${box.box_id}/egress`);
  const row = page.getByTestId('egress-row').first();
  await expect(row).toBeVisible();
  await expect(row.getByTestId('egress-injected-badge')).toHaveText('secret header injected');
  await expect(row.getByTestId('egress-upgraded-badge')).toHaveText('upgraded to HTTPS');
  await expect(row.getByTestId('egress-reason')).toContainText('sent on over HTTPS');
  await row.click();
  const details = page.getByTestId('egress-details');
  await expect(details).toBeVisible();
  await expect(details.getByTestId('egress-injected')).toContainText('authorization from secret EXAMPLE_TOKEN');
  await expect(details.getByTestId('egress-upgrade')).toContainText('sent it on over HTTPS (port 443)');
  await expect(details.getByTestId('egress-sent-to')).toHaveText('https://example.test:443');
  await expect(page.locator('body')).not.toContainText('tok_never_shown_123');
  // Keyboard: Enter closes and opens it again.
  await row.press('Enter');
  await expect(details).toHaveCount(0);
});

test('the lineage tree marks the checkpoint each box is on', async ({ page }) => {
  const box = await newBox('lineage-here');
  const cp = (await post(`/v1/boxes/${box.box_id}/checkpoint`, { name: 'first' })) as { checkpoint_id: string };
  const fork = (await post(`/v1/boxes/${box.box_id}/fork`, { name: 'lineage-there' })) as { checkpoint_id: string; boxes: { box_id: string }[] };
  await login(page, svc());
  await page.evaluate((h) => (location.hash = h), `#/boxes/${box.box_id}/checkpoints`);
  await expect(page.getByTestId('on-checkpoint')).toContainText('lineage-here is on checkpoint');
  // the fork checkpointed the box again: it is on that newest checkpoint, and the fork started from it
  const newest = page.locator(`[data-testid="checkpoint-node"][data-id="${fork.checkpoint_id}"]`);
  await expect(newest).toHaveAttribute('data-current', 'true');
  await expect(newest.getByTestId('checkpoint-here').filter({ hasText: 'lineage-here is here' })).toBeVisible();
  await expect(newest.locator(`[data-testid="checkpoint-here"][data-box="${fork.boxes[0]!.box_id}"]`)).toBeVisible();
  await expect(page.locator(`[data-testid="checkpoint-node"][data-id="${cp.checkpoint_id}"]`)).not.toHaveAttribute('data-current', 'true');
});

test('Settings: sections with a sub-navigation, short pages, and New key / Revoke on screen at 760 px', async ({ page }) => {
  await page.setViewportSize({ width: 760, height: 900 });
  await login(page, svc());
  await page.evaluate((h) => (location.hash = h), '#/settings');
  await expect(page.getByTestId('settings-nav')).toBeVisible();
  for (const id of ['general', 'integrations', 'engines', 'templates', 'service']) {
    await page.getByTestId(`settings-tab-${id}`).click();
    await expect(page.getByTestId(`settings-section-${id}`)).toBeVisible();
    await expect(page.getByTestId(`settings-tab-${id}`)).toHaveAttribute('aria-current', 'page');
    const m = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(m.scroll, `${id} at 760 px`).toBeLessThanOrEqual(m.client);
  }
  await page.getByTestId('settings-tab-general').click();
  for (const el of [page.getByTestId('create-key'), page.getByRole('button', { name: 'Revoke' }).first()]) {
    const b = (await el.boundingBox())!;
    expect(b.x + b.width).toBeLessThanOrEqual(760);
  }
  // each section is far shorter than the old single page (2,545 px)
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(height).toBeLessThan(2000);
});
