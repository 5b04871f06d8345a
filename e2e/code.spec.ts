import { AppPage } from './pages/app-page.js';
import { BoxesPage } from './pages/boxes-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';
import { terminateAll } from './support/service.js';

// A real microVM: the guest image comes from BOX_IMAGE_CACHE (npm test sets it) or is built once.
// the default template's warm kernel (scripts/test.mjs turns it off for the other specs), for
// this file's service alone: set in process.env for good, it reached every later file of the
// same worker, and their first creates waited for a kernel warm-up under load (CI: > 5 min)
const svc = serviceForFile({}, { beforeClose: terminateAll, env: { BOX_CODE_WARM: '1' } });
test.setTimeout(900_000);

test('code tab: a notebook in a real box keeps state, shows a chart inline and a table', async ({ page }) => {
  await login(page, svc());
  await new AppPage(page).open('boxes');
  const boxes = new BoxesPage(page);
  await boxes.create('e2e-code', { app: 'e2e-code-app' });
  await page.getByTestId('tab-code').click();
  const input = page.getByTestId('code-input');

  await input.fill('xs = np.arange(10)\nprint("sum", xs.sum())');
  await input.press('Shift+Enter');
  const cells = page.getByTestId('code-cell');
  await expect(cells.nth(0).getByTestId('code-output')).toContainText('sum 45', { timeout: 300_000 });

  await input.fill('plt.plot(xs, xs ** 2)\nplt.title("squares")\nplt.show()');
  await page.getByTestId('code-run').click();
  const img = cells.nth(1).getByTestId('code-image');
  await expect(img).toBeVisible({ timeout: 120_000 });
  // a real decoded picture, not a broken image
  expect(await img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(100);
  // and what it plots, as data, under it
  const data = cells.nth(1).getByTestId('code-chart-data');
  await expect(data).toContainText('Data: line “squares” · 1 series');
  await data.locator('summary').click();
  await expect(data).toContainText('10 points (0, 0) (1, 1) (2, 4) (3, 9) …');

  await input.fill('pd.DataFrame({"x": xs[:3], "square": xs[:3] ** 2})');
  await input.press('Shift+Enter');
  await expect(cells.nth(2).getByTestId('code-html')).toBeVisible({ timeout: 120_000 });
  expect(
    await cells
      .nth(2)
      .getByTestId('code-html')
      .evaluate((f: HTMLIFrameElement) => f.contentDocument?.querySelectorAll('td').length),
  ).toBeGreaterThan(3);

  await input.fill('1 / 0');
  await input.press('Shift+Enter');
  await expect(cells.nth(3).getByTestId('code-error')).toContainText('ZeroDivisionError', { timeout: 120_000 });
  await cells.nth(1).scrollIntoViewIfNeeded();
  await screenshot(page, 'box-code');

  // history stays when the page is opened again
  await page.reload();
  await expect(page.getByTestId('code-cell')).toHaveCount(4);
});
