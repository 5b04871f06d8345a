import http from 'node:http';
import { startFakeUpstream } from '../src-server/inference/test-support/fake-upstreams.js';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { PlaygroundPage } from './pages/playground-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';
import type { E2eService } from './support/service.js';

/**
 * Issue 29, "the second hour": what a newcomer still tripped on, each checked in Chromium
 * against the real service. Every state or figure a view shows is read from the API too and
 * compared. Boxes run on the fake runtime (the UI is under test; boxes.spec.ts drives VMs).
 */
const svc = serviceForFile({}, { start: () => ({ runtime: (d: string) => new FakeRuntime(d) }) });

interface BoxRec {
  box_id: string;
  name: string;
  status: string;
  created_at: string;
  started_at: string | null;
  http_policy_id: string | null;
  ingress_urls: { guest_port: number; url: string }[];
  last_start: { operation: string; ms: number; from: string | null } | null;
}

async function createBox(s: E2eService, name: string, extra: Record<string, unknown> = {}): Promise<BoxRec> {
  const app = (await (await s.api('/v1/apps/find', { method: 'POST', json: { name: 'second-hour', mint_if_missing: true } })).json()) as { id: string };
  const res = await s.api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name, ...extra } });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as BoxRec;
}
const getBox = async (s: E2eService, id: string) => (await (await s.api(`/v1/boxes/${id}`)).json()) as BoxRec;

test('1. published ports: each with its URL from the API record, a working link and a copy button', async ({ page }) => {
  const box = await createBox(svc(), 'web-app', { ingress_ports: [8080, 9000] });
  const rec = await getBox(svc(), box.box_id);
  expect(rec.ingress_urls.map((u) => u.guest_port)).toEqual([8080, 9000]);
  await login(page, svc());
  await page.goto(`${svc().url}/#/boxes/${box.box_id}`);
  const ports = page.getByTestId('port-url');
  await expect(ports).toHaveCount(2);
  for (const [i, u] of rec.ingress_urls.entries()) {
    await expect(ports.nth(i).getByTestId('port-link')).toHaveAttribute('href', u.url);
    await expect(ports.nth(i).getByTestId('port-link')).toHaveText(u.url);
  }
  expect(rec.ingress_urls[0]!.url).toMatch(/^http:\/\/web-app\.box\.localhost:\d+\/$/);
  expect(rec.ingress_urls[1]!.url).toMatch(/^http:\/\/9000\.web-app\.box\.localhost:\d+\/$/);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await ports.first().getByTestId('port-copy').click();
  await expect(page.getByTestId('toast').filter({ hasText: `Copied ${rec.ingress_urls[0]!.url}` })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(rec.ingress_urls[0]!.url);
  await screenshot(page, 'ports');
});

test('3. names instead of ids: a box policy, the boxes of an image, a terminated fork; the id one click away', async ({ page }) => {
  const pol = (await (
    await svc().api('/v1/http-policies', {
      method: 'POST',
      json: { name: 'only-github', document: { 'github.com': { rules: [{ match: { method: 'GET' } }] } } },
    })
  ).json()) as {
    id: string;
    name: string;
  };
  const box = await createBox(svc(), 'named-parent', { http_policy_id: pol.id });
  const fork = (await (await svc().api(`/v1/boxes/${box.box_id}/fork`, { method: 'POST', json: { name: 'gone-fork' } })).json()) as { boxes: BoxRec[] };
  const forkId = fork.boxes[0]!.box_id;
  expect((await svc().api(`/v1/boxes/${forkId}/terminate`, { method: 'POST', json: {} })).status).toBe(200);
  await login(page, svc());
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);

  await page.goto(`${svc().url}/#/boxes/${box.box_id}`);
  const policy = page.getByTestId('policy-name-ref');
  await expect(policy.getByRole('link')).toHaveText(pol.name);
  await expect(policy).toHaveAttribute('data-id', (await getBox(svc(), box.box_id)).http_policy_id!);
  await policy.getByTestId('copy-id').click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(pol.id);

  // The lineage names the terminated fork (the list API leaves terminated boxes out).
  await page.getByTestId('tab-checkpoints').click();
  const forkRef = page.getByTestId('lineage').locator(`[data-testid="box-name-ref"][data-id="${forkId}"]`);
  await expect(forkRef.getByRole('link')).toHaveText('gone-fork');
  await expect(forkRef).toContainText('(terminated)');
  expect(((await (await svc().api(`/v1/boxes/${forkId}`)).json()) as BoxRec).status).toBe('terminated');

  // The images view names the boxes of each image.
  const images = (await (await svc().api('/v1/images')).json()) as { data: { name: string; boxes: string[] }[] };
  const debian = images.data.find((i) => i.boxes.includes(box.box_id))!;
  await page.goto(`${svc().url}/#/images`);
  const ref = page.locator(`[data-testid="box-name-ref"][data-id="${box.box_id}"]`);
  await expect(ref.getByRole('link')).toHaveText('named-parent');
  expect(debian.boxes).toContain(box.box_id);
  await screenshot(page, 'images-names');
});

test('4. box files: opens the box Files tab, starts in home, new folder, rename, delete, preview text and image', async ({ page }) => {
  const box = await createBox(svc(), 'files-box');
  const put = (p: string, body: BodyInit) =>
    svc().api(`/v1/boxes/${box.box_id}/files?path=${encodeURIComponent(p)}&create_parents=true`, { method: 'PUT', body });
  expect((await put('/root/notes.txt', 'hello from the box\nline two\n')).status).toBeLessThan(300);
  // A 1x1 PNG.
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  expect((await put('/root/dot.png', png)).status).toBeLessThan(300);
  await login(page, svc());
  await page.goto(`${svc().url}/#/boxes/${box.box_id}`);
  await page.getByTestId('tab-files').click();
  // Home: /root, the $HOME execs get.
  await expect(page.getByTestId('breadcrumbs')).toContainText('root');
  const entry = (name: string) => page.locator(`[data-testid="entry"][data-name="${name}"]`);
  await expect(entry('notes.txt')).toBeVisible();

  await entry('notes.txt').getByTestId('entry-open').click();
  await expect(page.getByTestId('preview-text')).toHaveText('hello from the box\nline two\n');
  await page.keyboard.press('Escape');
  await entry('dot.png').getByTestId('entry-open').click();
  await expect(page.getByTestId('preview-image')).toBeVisible();
  expect(await page.getByTestId('preview-image').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
  await page.keyboard.press('Escape');

  await page.getByTestId('new-folder').click();
  await page.getByTestId('new-folder-name').fill('made here');
  await page.getByTestId('new-folder-create').click();
  await expect(entry('made here')).toHaveAttribute('data-type', 'directory');
  await entry('notes.txt').getByTestId('entry-rename').click();
  await page.getByTestId('rename-input').fill('renamed.txt');
  await page.getByTestId('rename-save').click();
  await expect(entry('renamed.txt')).toBeVisible();
  await expect(entry('notes.txt')).toHaveCount(0);
  await entry('made here').getByTestId('entry-delete').click();
  await entry('made here').getByTestId('entry-delete').click();
  await expect(entry('made here')).toHaveCount(0);
  // The API sees the same folder.
  const dir = (await (await svc().api(`/v1/boxes/${box.box_id}/directories?path=/root`)).json()) as { entries: { name: string }[] };
  expect(dir.entries.map((e) => e.name).sort()).toEqual(['dot.png', 'renamed.txt']);
  await screenshot(page, 'box-files');
});

test('6. keyboard: Alt+0 opens Images, ? lists shortcuts, the palette runs any box action by name', async ({ page }) => {
  const box = await createBox(svc(), 'palette-box');
  await login(page, svc());
  await expect(page.getByTestId('nav-images').getByTestId('nav-hint')).toHaveText('Alt+0');
  await page.keyboard.press('Alt+0');
  await expect(page.getByTestId('view-images')).toBeVisible();
  await page.keyboard.press('Alt+1');
  await expect(page.getByTestId('view-boxes')).toBeVisible();

  await page.keyboard.press('?');
  const help = page.getByTestId('shortcut-help');
  await expect(help).toBeVisible();
  await expect(help.getByTestId('shortcut-view')).toHaveCount(11);
  await expect(help).toContainText('Ctrl+K');
  await page.keyboard.press('Escape');
  await expect(help).toHaveCount(0);

  // "fork palette" finds the fork of the named box; Enter forks it.
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('fork palette-box');
  await expect(page.getByTestId('palette-item').first()).toContainText('Fork box palette-box');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('box-title')).toHaveText('palette-box-fork', { timeout: 30_000 });
  const lineage = (await (await svc().api('/v1/box-lineage')).json()) as { data: { box_id: string; parent_box_id: string | null }[] };
  const forkEdge = lineage.data.find((e) => e.parent_box_id === box.box_id);
  expect(forkEdge).toBeDefined();

  // Sleep by name asks for a second Enter, then the API says sleeping.
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('sleep palette-box');
  await expect(page.getByTestId('palette-item').first()).toContainText('Sleep box palette-box');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('palette-item').first()).toContainText('Enter again to confirm');
  expect((await getBox(svc(), box.box_id)).status).toBe('running');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await getBox(svc(), box.box_id)).status).toBe('sleeping');

  // Creates and settings are there too.
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('create box');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('create-box-dialog')).toBeVisible();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('settings quitting');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('quit-panel')).toBeVisible();
});

test('7. narrow windows: at 760 px the sidebar collapses and every row action is reachable; at 1100 px detail cells wrap', async ({ page }) => {
  const box = await createBox(svc(), 'narrow-one', { ingress_ports: [3000] });
  await page.setViewportSize({ width: 760, height: 800 });
  await login(page, svc());
  const sidebar = page.getByTestId('sidebar');
  expect((await sidebar.boundingBox())!.width).toBeLessThan(80);
  await expect(page.getByTestId('nav-secrets').getByTestId('icon-secrets')).toBeVisible();
  const row = page.locator('[data-testid="box-row"][data-name="narrow-one"]');
  await row.getByTestId('row-actions').click();
  for (const op of ['pause', 'sleep', 'reboot', 'terminate']) await expect(row.getByTestId(`action-${op}`)).toBeInViewport({ ratio: 1 });
  await screenshot(page, 'boxes-760');
  // Reboot from the menu: a second click confirms; the API then shows a new start.
  const before = (await getBox(svc(), box.box_id)).started_at;
  await row.getByTestId('action-reboot').click();
  await expect(row.getByTestId('action-reboot')).toContainText('Reboot?');
  await row.getByTestId('action-reboot').click();
  await expect.poll(async () => (await getBox(svc(), box.box_id)).started_at).not.toBe(before);

  await page.setViewportSize({ width: 1100, height: 800 });
  await page.goto(`${svc().url}/#/boxes/${box.box_id}`);
  expect((await sidebar.boundingBox())!.width).toBeGreaterThan(200);
  // No detail cell is cut: each value's content fits its box.
  const cut = await page.locator('dl dd').evaluateAll((dds) => dds.filter((d) => d.scrollWidth > d.clientWidth + 1).map((d) => d.textContent));
  expect(cut).toEqual([]);
  await expect(page.getByText('1 vCPU · 512 MiB RAM · 4 GiB disk')).toBeVisible();
});

test('2. true states: cron last run after Run now, ticking "created", last start, the quit rule of a headless service, a background response', async ({
  page,
}) => {
  const box = await createBox(svc(), 'state-box');
  const job = (await (await svc().api(`/v1/boxes/${box.box_id}/cron`, { method: 'POST', json: { schedule: '0 3 * * *', command: 'echo hi' } })).json()) as {
    id: string;
  };
  await login(page, svc());

  // Cron: "never", then Run now, then the time the API gives as last_run_at.
  await page.goto(`${svc().url}/#/cron?box=${box.box_id}`);
  const last = page.getByTestId('cron-last-run');
  await expect(last).toHaveText('never');
  await page.getByTestId('cron-run-now').click();
  await expect(last).not.toHaveText('never');
  const after = (await (await svc().api(`/v1/boxes/${box.box_id}/cron/${job.id}`)).json()) as { last_run_at: string };
  await expect(last).toHaveAttribute('data-at', after.last_run_at);

  // Box list: "created" is the API's created_at, and it keeps counting.
  await page.goto(`${svc().url}/#/boxes`);
  const created = page.locator('[data-testid="box-row"][data-name="state-box"]').getByTestId('box-created');
  await expect(created).toHaveAttribute('data-at', box.created_at);
  const seconds = async () => Number((await created.innerText()).match(/^(\d+)s ago$/)?.[1] ?? NaN);
  const first = await seconds();
  await page.waitForTimeout(2500);
  expect(await seconds()).toBeGreaterThanOrEqual(first + 2);

  // Box page: the last start is the API's (operation and time), and "created" is its created_at.
  const rec = await getBox(svc(), box.box_id);
  await page.goto(`${svc().url}/#/boxes/${box.box_id}`);
  await expect(page.getByTestId('box-created')).toHaveAttribute('data-at', rec.created_at);
  const ls = rec.last_start!;
  await expect(page.getByTestId('box-last-start')).toHaveText(new RegExp(`^${ls.operation.replace('_', ' ')} in ${ls.ms} ms`));

  // Settings: a headless service (this one) cannot ask; the panel says so, as the API's plan does.
  const status = (await (await svc().api('/v1/status')).json()) as { shell: string };
  expect(status.shell).toBe('headless');
  const plan = (await (await svc().api('/v1/service/quit-plan?where=headless')).json()) as { message: string; action: string };
  expect(plan.action).toBe('stop_boxes');
  await page.goto(`${svc().url}/#/settings/quit`);
  await expect(page.getByTestId('quit-shell')).toHaveAttribute('data-shell', 'headless');
  await expect(page.getByTestId('quit-plan')).toHaveText(`Now: ${plan.message}`);
  await expect(page.getByTestId('on-quit-label-ask')).toContainText('desktop app only');
  await screenshot(page, 'quit-headless');
});

test('2. true states: a background response shows its state as of the latest poll, the one the API gives', async ({ page }) => {
  const upstream = await startFakeUpstream('openai');
  try {
    upstream.delayMs = 1500;
    const res = await svc().api('/v1/engines', { method: 'POST', json: { name: 'bg', kind: 'openai', base_url: upstream.url, api_key: 'sk-fake' } });
    expect(res.status, await res.clone().text()).toBe(200);
    await login(page, svc());
    await page.goto(`${svc().url}/#/playground`);
    const pg = new PlaygroundPage(page);
    await page.getByTestId('style-responses').click();
    await page.getByTestId('background').check();
    await pg.send({ style: 'responses', model: 'bg/fake-gpt', prompt: 'in the background' });
    await expect(page.getByTestId('response-status')).toContainText('202');
    await expect(page.getByTestId('response-state')).toHaveAttribute('data-state', 'completed', { timeout: 30_000 });
    await expect(page.getByTestId('response-state')).toHaveText(' · now completed');
    const id = JSON.parse(await pg.rawResponse().innerText()).id as string;
    const api = (await (await svc().api(`/v1/responses/${id}`)).json()) as { status: string };
    expect(api.status).toBe('completed');
  } finally {
    await upstream.close();
  }
});

test('5. errors that lead somewhere: save an upstream untested, "Look now" with nothing found, why an egress request was refused', async ({ page }) => {
  await login(page, svc());
  // An upstream that is not up: the add is refused with the reason, the checkbox saves it untested.
  await page.goto(`${svc().url}/#/settings/engines`);
  const panel = page.getByTestId('engines-panel');
  await panel.getByLabel('Engine name').fill('later');
  await panel.getByLabel('Base URL').fill('http://127.0.0.1:9/v1');
  await panel.getByTestId('engine-add').click();
  await expect(page.getByTestId('engine-add-error')).toContainText('127.0.0.1:9');
  await expect(page.getByTestId('engine-untested-hint')).toBeVisible();
  await panel.getByTestId('engine-untested').check();
  await panel.getByTestId('engine-add').click();
  await expect(panel.getByTestId('engine').filter({ hasText: 'later' })).toBeVisible();
  const engines = (await (await svc().api('/v1/engines')).json()) as { data: { name: string }[] };
  expect(engines.data.map((e) => e.name)).toContain('later');

  // Look now: nothing answers on the probed ports here, and the view says so.
  const discovery = (await (await svc().api('/v1/engines/discovery')).json()) as { enabled: boolean; allowed: boolean };
  if (discovery.allowed) {
    if (!discovery.enabled) await page.getByTestId('discovery-on').check();
    await page.getByTestId('scan').click();
    const found = ((await (await svc().api('/v1/engines/discovery/scan', { method: 'POST' })).json()) as { data: unknown[] }).data.length;
    await expect(page.getByTestId('scan-result')).toHaveAttribute('data-found', String(found));
    if (found === 0) await expect(page.getByTestId('scan-result')).toContainText('Nothing found');
  }

  // Egress: a request through the box's own proxy, refused by its policy; the row says why.
  const pol = (await (
    await svc().api('/v1/http-policies', { method: 'POST', json: { name: 'just-one', document: { 'allowed.example': { rules: [] } } } })
  ).json()) as {
    id: string;
  };
  const box = await createBox(svc(), 'egress-why', { http_policy_id: pol.id });
  const port = (await svc().ctx.services.egress.proxyPortFor(box.box_id))!;
  const refused = await new Promise<string>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: 'http://blocked.example/secret', headers: { host: 'blocked.example' } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
  expect(refused).toContain('no policy entry matches host blocked.example');
  await page.goto(`${svc().url}/#/boxes/${box.box_id}/egress`);
  const row = page.getByTestId('egress-row').filter({ hasText: 'blocked.example' });
  await expect(row).toHaveAttribute('data-verdict', 'deny');
  const logged = (await (await svc().api(`/v1/boxes/${box.box_id}/egress-log`)).json()) as { data: { reason: string | null }[] };
  await expect(row.getByTestId('egress-reason')).toHaveText(logged.data[0]!.reason!);
  expect(logged.data[0]!.reason).toBe(refused.trim());
  await screenshot(page, 'egress-why');
});

test('8. smaller: Secrets icon, a preset keeps the name, a rules table edits the JSON, Sleep confirms, checkpoints deleted from the tree', async ({ page }) => {
  await login(page, svc());
  await expect(page.getByTestId('nav-secrets').getByTestId('icon-secrets')).toBeVisible();

  await page.goto(`${svc().url}/#/policies`);
  await page.getByTestId('policy-new').click();
  await page.getByTestId('policy-name').fill('my-team');
  await page.locator('[data-testid^="preset-"]').first().click();
  await expect(page.getByTestId('policy-name')).toHaveValue('my-team');
  // The table and the JSON are one document.
  await page.getByTestId('rules-new-host').fill('api.team.example');
  await page.getByTestId('rules-add').click();
  await expect(page.getByTestId('policy-document')).toHaveValue(/"api\.team\.example": \{\s*"rules": \[\]/);
  await page.locator('[data-testid="rules-row"][data-host="api.team.example"]').getByTestId('rules-tls').selectOption('passthrough');
  await expect(page.getByTestId('policy-document')).toHaveValue(/"api\.team\.example": \{\s*"rules": \[\],\s*"tls": "passthrough"/);
  await page.getByTestId('policy-save').click();
  await expect
    .poll(
      async () =>
        ((await (await svc().api('/v1/http-policies')).json()) as { data: { name: string; document: Record<string, { tls?: string }> }[] }).data.find(
          (p) => p.name === 'my-team',
        )?.document['api.team.example']?.tls,
    )
    .toBe('passthrough');
  await screenshot(page, 'policy-table');

  // Sleep asks first; a checkpoint can be deleted in place.
  const box = await createBox(svc(), 'small-things');
  const cp = (await (await svc().api(`/v1/boxes/${box.box_id}/checkpoint`, { method: 'POST', json: { name: 'keep-or-not' } })).json()) as {
    checkpoint_id: string;
  };
  await expect.poll(async () => ((await (await svc().api(`/v1/box-checkpoints/${cp.checkpoint_id}`)).json()) as { status: string }).status).toBe('ready');
  await page.goto(`${svc().url}/#/boxes/${box.box_id}/checkpoints`);
  await page.getByTestId('action-sleep').click();
  await expect(page.getByTestId('action-sleep')).toContainText('Sleep?');
  expect((await getBox(svc(), box.box_id)).status).toBe('running');
  await page.keyboard.press('Escape');
  const node = page.locator(`[data-testid="checkpoint-node"][data-id="${cp.checkpoint_id}"]`);
  await node.getByTestId('checkpoint-delete').click();
  await node.getByTestId('checkpoint-delete').click();
  await expect(node).toHaveCount(0);
  expect((await svc().api(`/v1/box-checkpoints/${cp.checkpoint_id}`)).status).toBe(404);
});
