import { AppPage } from './pages/app-page.js';
import { SettingsPage } from './pages/settings-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';

const svc = serviceForFile();

test('settings: create an API key that really works, see the accelerator and credits', async ({ page }) => {
  await login(page, svc());
  const app = new AppPage(page);
  await app.paletteGo('Settings');
  await page.getByTestId('view-settings').waitFor();
  const settings = new SettingsPage(page);

  // Count what the service holds, then wait for the list to show all of it: counting rows
  // before the list has loaded would give 0.
  const before = ((await (await svc().api('/v1/api-keys')).json()) as { data: unknown[] }).data.length;
  await expect(settings.keyRows()).toHaveCount(before);
  const secret = await settings.createKey('e2e-created');
  expect(secret.length).toBeGreaterThan(20);
  await expect(settings.keyRows()).toHaveCount(before + 1);
  await expect(page.getByTestId('api-key-row').filter({ hasText: 'e2e-created' })).toBeVisible();

  // The secret shown once is a real key: it authenticates against the service.
  const who = await fetch(`${svc().url}/v1/whoami`, { headers: { authorization: `Bearer ${secret}` } });
  expect(who.status).toBe(200);

  // The accelerator shown is the one the service reports.
  const status = (await (await svc().api('/v1/status')).json()) as { accelerator?: unknown };
  if (status.accelerator === undefined) await expect(settings.accelerator()).toContainText('not reported');
  else
    await expect(settings.accelerator()).toContainText(
      typeof status.accelerator === 'string' ? status.accelerator : JSON.stringify(status.accelerator).slice(2, 12),
    );

  const org = (await (await svc().api('/v1/organization')).json()) as { credits_usd_nanos: number };
  await expect(settings.credits()).toContainText(
    `$${(org.credits_usd_nanos / 1e9).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 })}`,
  );
  // Adding credits really changes the organization's balance.
  await page.getByTestId('credits-add-amount').fill('2.5');
  await page.getByTestId('credits-add').click();
  const after = org.credits_usd_nanos + 2.5e9;
  await expect(settings.credits()).toContainText(`$${(after / 1e9).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 })}`);
  expect(((await (await svc().api('/v1/organization')).json()) as { credits_usd_nanos: number }).credits_usd_nanos).toBe(after);
  await page.getByTestId('settings-tab-engines').click();
  await expect(page.getByTestId('engine').first()).toContainText('local');
  await screenshot(page, 'settings');
});

test('keyboard: Alt+digit and g-shortcuts switch views, the palette closes on Esc', async ({ page }) => {
  await login(page, svc());
  await page.keyboard.press('Alt+2');
  await page.getByTestId('view-cron').waitFor();
  await page.keyboard.press('g');
  await page.keyboard.press('s');
  await page.getByTestId('view-settings').waitFor();
  await page.keyboard.press('g');
  await page.keyboard.press('v');
  await page.getByTestId('view-volumes').waitFor();
  await page.keyboard.press('Control+k');
  await expect(page.getByTestId('command-palette')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('command-palette')).toHaveCount(0);
});
