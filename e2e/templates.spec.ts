import { AppPage } from './pages/app-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';

const svc = serviceForFile();

test('settings: the default template is built in the background and shown with its state, bytes and boxes', async ({ page }) => {
  test.setTimeout(600_000);
  await login(page, svc());
  const app = new AppPage(page);
  await app.paletteGo('Settings');
  await page.getByTestId('settings-tab-templates').click();
  const panel = page.getByTestId('templates-panel');
  await panel.waitFor();
  const tpl = panel.getByTestId('template').first();
  // prepared at service start: building (with progress) or already ready
  await expect(tpl).toBeVisible({ timeout: 60_000 });
  await expect(tpl).toHaveAttribute('data-state', 'ready', { timeout: 480_000 });
  const api = (await (await svc().api('/v1/templates')).json()) as { data: { template_id: string; size: string; boxes: number }[] };
  expect(api.data).toHaveLength(1);
  await expect(tpl).toContainText(api.data[0]!.template_id);
  await expect(tpl).toContainText('size s');
  await expect(tpl.getByTestId('template-boxes')).toHaveText('0 boxes');
  await screenshot(page, 'settings-templates');
});
