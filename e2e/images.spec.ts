import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImageStore } from '../src-server/areas/images/image-store.js';
import { importOciArchive } from '../src-server/areas/images/oci-import.js';
import { makeTestDockerArchive } from '../src-server/areas/images/test-support/archive.js';
import { AppPage } from './pages/app-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';

const svc = serviceForFile();

test('images: the list shows built-in and imported images, the create dialog offers them, delete removes one', async ({ page }) => {
  const archive = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'oci-e2e-')), 'a.tar');
  await makeTestDockerArchive(archive, { withCmd: false });
  await importOciArchive(new ImageStore(svc().dataDir), archive, 'tools');
  fs.rmSync(path.dirname(archive), { recursive: true, force: true });

  await login(page, svc());
  await new AppPage(page).open('images');
  const rows = page.getByTestId('image-row');
  await expect(rows).toHaveCount(2);
  await expect(page.locator('[data-testid="image-row"][data-name="debian"]')).toContainText('builtin');
  await expect(page.locator('[data-testid="image-row"][data-name="tools"]')).toContainText('oci');
  await screenshot(page, 'images-list');

  await new AppPage(page).open('boxes');
  await page.getByTestId('box-new').click();
  const select = page.getByTestId('create-box-dialog').getByTestId('box-image');
  await expect(select.locator('option')).toHaveText(['debian (default)', 'tools (oci)']);
  await select.selectOption('tools');
  await expect(select).toHaveValue('tools');
  await page.keyboard.press('Escape');

  await new AppPage(page).open('images');
  await page.getByTestId('image-delete-tools').click();
  await page.getByTestId('image-delete-tools').click(); // confirm
  await expect(rows).toHaveCount(1);
});
