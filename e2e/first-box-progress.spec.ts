import type { Page } from '@playwright/test';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { AppPage } from './pages/app-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';

// Issue 38 item 14: the first box of a new size waits behind the create dialog; it shows the
// time elapsed and an estimate of time left that never goes up. The runtime is a fake whose
// starts take a set time (the first 7 s, later ones 5 s), so the wait is the same every run.
let starts = 0;
class SlowStartRuntime extends FakeRuntime {
  override async create(cfg: Parameters<FakeRuntime['create']>[0]) {
    await new Promise((r) => setTimeout(r, starts++ === 0 ? 7000 : 5000));
    return super.create(cfg);
  }
}
const svc = serviceForFile({}, { start: () => ({ runtime: (d: string) => new SlowStartRuntime(d) }) });

async function createAndWatch(page: Page, name: string) {
  await page.getByTestId('box-new').click();
  const dialog = page.getByTestId('create-box-dialog');
  await dialog.getByTestId('box-name').fill(name);
  await dialog.getByTestId('size-m').click();
  await dialog.getByTestId('create-box-submit').click();
  const boot = dialog.getByTestId('preparation');
  await expect(boot).toHaveAttribute('data-state', 'booting');
  const samples: Array<{ elapsed: number; left: number }> = [];
  for (let i = 0; i < 3; i++) {
    samples.push({
      elapsed: Number(await dialog.getByTestId('boot-elapsed').getAttribute('data-seconds')),
      left: Number(await dialog.getByTestId('boot-left').getAttribute('data-seconds')),
    });
    await page.waitForTimeout(1100);
  }
  const text = await boot.innerText();
  await expect(page.getByTestId('box-title')).toHaveText(name, { timeout: 30_000 });
  return { samples, text };
}

test('first box of a new size: the dialog shows time elapsed and time left that only counts down; the next one is estimated from it', async ({ page }) => {
  await login(page, svc());
  await new AppPage(page).open('boxes');
  const first = await createAndWatch(page, 'first-m');
  expect(first.text).toContain('first box of this image and size also makes its template');
  expect(first.text).toMatch(/\ds elapsed/);
  expect(first.text).toMatch(/about \d+s left|about \d+ min left/);
  // elapsed grows; left never goes up
  expect(first.samples.at(-1)!.elapsed).toBeGreaterThan(first.samples[0]!.elapsed);
  for (let i = 1; i < first.samples.length; i++) expect(first.samples[i]!.left).toBeLessThanOrEqual(first.samples[i - 1]!.left);

  // The second box of that size: its estimate comes from the first start (7 s, measured by the service).
  const box = (await (await svc().api('/v1/boxes?limit=10')).json()) as { data: Array<{ name: string; last_start: { ms: number } | null }> };
  const ms = box.data.find((b) => b.name === 'first-m')!.last_start!.ms;
  expect(ms).toBeGreaterThanOrEqual(7000);
  await new AppPage(page).open('boxes');
  const second = await createAndWatch(page, 'second-m');
  expect(second.text).not.toContain('makes its template');
  expect(second.samples[0]!.left).toBeLessThanOrEqual(Math.ceil(Math.round(ms / 1000) * 1.25));
  for (let i = 1; i < second.samples.length; i++) expect(second.samples[i]!.left).toBeLessThanOrEqual(second.samples[i - 1]!.left);
  // past the estimate it says so, and the number does not climb back
  expect(second.samples.every((s) => s.left >= 0)).toBe(true);
  await screenshot(page, 'boxes-second-box');
});
