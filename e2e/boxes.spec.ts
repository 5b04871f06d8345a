import { AppPage } from './pages/app-page.js';
import { BoxesPage } from './pages/boxes-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';
import { terminateAll } from './support/service.js';

// Real microVMs: the guest image comes from BOX_IMAGE_CACHE (npm test sets it) or is built once.
const svc = serviceForFile({}, { beforeClose: terminateAll });
test.setTimeout(900_000);

test('boxes: create in a new app, type into a real shell, pause and resume with memory kept', async ({ page }) => {
  test.skip(!(await svc().has('post', '/v1/boxes')), 'the boxes area is not installed');
  await login(page, svc());
  await new AppPage(page).open('boxes');
  await expect(page.getByTestId('empty')).toBeVisible();
  const boxes = new BoxesPage(page);
  await boxes.create('e2e-box', { app: 'e2e-app' });
  await expect(boxes.status()).toHaveAttribute('data-status', 'running');
  const apps = (await (await svc().api('/v1/apps')).json()) as { data: Array<{ app_name: string; running_count: number }> };
  expect(apps.data.find((a) => a.app_name === 'e2e-app')?.running_count).toBe(1);

  // Lifecycle buttons follow the status: a running box cannot be resumed.
  await expect(page.getByTestId('action-resume')).toBeDisabled();
  await expect(page.getByTestId('action-pause')).toBeEnabled();

  await boxes.openShell();
  await boxes.type('export MARK=$((6*7)); echo "mark-$MARK" | tee /dev/shm/mark; echo "host=$(hostname)"; cat /proc/sys/kernel/random/boot_id > /dev/shm/boot');
  await expect(boxes.terminalText()).toContainText('mark-42');
  await expect(boxes.terminalText()).toContainText('host=e2e-box');
  await screenshot(page, 'boxes-terminal');

  await boxes.action('pause');
  await expect(boxes.status()).toHaveAttribute('data-status', 'paused', { timeout: 120_000 });
  await expect(page.getByTestId('action-pause')).toBeDisabled();
  await expect(page.getByTestId('terminal-connect')).toBeDisabled();
  await boxes.action('resume');
  await expect(boxes.status()).toHaveAttribute('data-status', 'running', { timeout: 120_000 });

  // Memory survived pause/resume: the tmpfs file is there and the kernel did not boot again.
  await boxes.openShell();
  await boxes.type('cat /dev/shm/mark; [ "$(cat /proc/sys/kernel/random/boot_id)" = "$(cat /dev/shm/boot)" ] && echo same-boot');
  await expect(boxes.terminalText()).toContainText('same-boot', { timeout: 60_000 });
  await expect(boxes.terminalText()).toContainText('mark-42');

  // Checkpoint, then fork: both show up in the tree under this box.
  await page.getByTestId('tab-checkpoints').click();
  await page.getByTestId('lineage').getByPlaceholder('name (optional)').fill('before-fork');
  await page.getByTestId('checkpoint').click();
  await expect(page.getByTestId('checkpoint-node').filter({ hasText: 'before-fork' })).toBeVisible({ timeout: 120_000 });
  await page.getByTestId('fork').click();
  // The fork shows twice: as a box in the tree, and as "is here" on the checkpoint it stands on.
  await expect(page.getByTestId('lineage').getByRole('link', { name: 'e2e-box-fork' })).toHaveCount(2, { timeout: 300_000 });
  await expect(page.getByTestId('lineage').getByTestId('checkpoint-here').getByRole('link', { name: 'e2e-box-fork' })).toBeVisible();
  await screenshot(page, 'boxes-lineage');
  await page.getByTestId('tab-metrics').click();
  await expect(page.getByTestId('metrics')).toBeVisible();
  await screenshot(page, 'boxes-metrics');

  await new AppPage(page).open('boxes');
  await expect(page.locator('[data-testid="box-row"][data-name="e2e-box"] [data-testid="box-status"]')).toHaveAttribute('data-status', 'running');
  await expect(page.locator('[data-testid="box-row"][data-name="e2e-box-fork"] [data-testid="box-status"]')).toHaveAttribute('data-status', 'running');
  await screenshot(page, 'boxes');
});
