import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startService, type ServiceHandle } from '../src-server/service.js';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { docShots, expect, screenshot, test } from './support/fixtures.js';
import { E2E_KEY, RENDERER_DIR } from './support/service.js';

/**
 * Issue 38 (1): the real service stops under an open page, then starts again on the same
 * port and data dir. The open tabs say so (a banner, states unknown, mutating actions
 * disabled) instead of a raw "Failed to fetch" and stale "running" pills, and come back by
 * themselves, without a reload. A fake runtime: no VM is needed to lose the service.
 */
const quiet = { info() {}, warn() {}, error: (...a: unknown[]) => console.error(...a) };
let dataDir: string;
let svc: ServiceHandle | undefined;

const start = (port: number) =>
  startService({ dataDir, port, apiKey: E2E_KEY, webUiDir: RENDERER_DIR, log: quiet, runtime: (d: string) => new FakeRuntime(d) });

test.beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-e2e-restart-'));
});
test.afterAll(async () => {
  await svc?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function post(pathname: string, json: unknown = {}) {
  const res = await fetch(`${svc!.url}${pathname}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${E2E_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(json),
  });
  expect(res.status, pathname).toBe(200);
  return res.json();
}

test('the service stops under open pages and comes back: banner, unknown states, disabled actions, recovery without reload', async ({ page, context }) => {
  svc = await start(0);
  const port = Number(new URL(svc.url).port);
  const app = (await post('/v1/apps/find', { name: 'restart', mint_if_missing: true })).id;
  const box = await post('/v1/boxes', { app_id: app, name: 'survivor' });

  await page.goto(await svc.loginUrl());
  await expect(page.getByTestId('service-status')).toContainText('service');
  await page.evaluate((h) => (location.hash = h), `#/boxes/${box.box_id}`);
  await expect(page.getByTestId('box-status')).toHaveAttribute('data-status', 'running');
  const list = await context.newPage();
  await list.goto(`${svc.url}/#/boxes`);
  const row = list.locator('[data-testid="box-row"][data-name="survivor"]');
  await expect(row.getByTestId('box-status')).toHaveAttribute('data-status', 'running');
  // Neither page may reload on the way: a marker in each window must survive.
  for (const p of [page, list]) await p.evaluate(() => ((window as unknown as { marker: number }).marker = 42));

  await svc.close();
  svc = undefined;

  for (const p of [page, list]) {
    await expect(p.getByTestId('service-banner')).toBeVisible();
    await expect(p.getByTestId('service-banner')).toContainText('Service stopped');
    await expect(p.getByTestId('service-banner')).toContainText('npm start');
    await expect(p.getByTestId('service-status')).toContainText('unreachable');
    await expect(p.getByText('Failed to fetch')).toHaveCount(0);
  }
  // The box page keeps what it knew, but its state is unknown and nothing can change it.
  await expect(page.getByTestId('box-title')).toHaveText('survivor');
  await expect(page.getByTestId('box-status')).toHaveAttribute('data-status', 'unknown');
  for (const op of ['pause', 'sleep', 'reboot', 'terminate']) await expect(page.getByTestId(`action-${op}`)).toBeDisabled();
  await expect(page.getByTestId('action-sleep')).toHaveAttribute('title', /service is stopped/i);
  // The list: no stale "running" pill, no New box.
  await expect(row.getByTestId('box-status')).toHaveAttribute('data-status', 'unknown');
  await expect(list.getByTestId('box-new')).toBeDisabled();
  await expect(list.getByTestId('box-new')).toHaveAttribute('title', /service is stopped/i);
  await screenshot(page, 'service-stopped');
  await docShots(page, 'service-restart', () => expect(page.getByTestId('service-banner')).toBeVisible());
  // Still down after a while (polling with backoff does not flap to "up").
  await page.waitForTimeout(3000);
  await expect(page.getByTestId('service-banner')).toBeVisible();
  await expect(page.getByText('Failed to fetch')).toHaveCount(0);

  svc = await start(port);
  const now = (await (await fetch(`${svc.url}/v1/boxes/${box.box_id}`, { headers: { authorization: `Bearer ${E2E_KEY}` } })).json()).status as string;
  expect(now).not.toBe('unknown');

  for (const p of [page, list]) {
    await expect(p.getByTestId('service-banner')).toBeHidden({ timeout: 30_000 });
    await expect(p.getByTestId('service-status')).toContainText('service ');
    expect(await p.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
  }
  await expect(page.getByTestId('box-status')).toHaveAttribute('data-status', now);
  await expect(row.getByTestId('box-status')).toHaveAttribute('data-status', now);
  await expect(list.getByTestId('box-new')).toBeEnabled();
  await expect(page.getByTestId('action-terminate')).toBeEnabled();
});
