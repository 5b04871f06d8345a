import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { expect, login, serviceForFile, test } from './support/fixtures.js';
import { seedEveryView, visit, type Place } from './support/every-view.js';

/**
 * The layout pass (issue 38): every view, box tab, settings section and dialog at 760, 1100
 * and 1440 px wide has no horizontal scroll (the document's scrollWidth is the window's
 * width), and "Next run" in the cron table stays on one line at 1440.
 */
const svc = serviceForFile({}, { start: () => ({ runtime: (d: string) => new FakeRuntime(d) }) });
let places: Place[];
test.beforeAll(async () => {
  places = await seedEveryView(svc());
});

test('no horizontal scroll in any view or dialog at 760, 1100 and 1440 px', async ({ page }) => {
  // ~1 min on a quiet machine; the limit leaves room for a loaded one
  test.setTimeout(600_000);
  await login(page, svc());
  const wide: string[] = [];
  for (const width of [760, 1100, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    for (const place of places) {
      await visit(page, svc(), place);
      const m = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      if (m.scroll > m.client) {
        const culprits = await page.evaluate((w) => {
          const out: string[] = [];
          for (const el of document.querySelectorAll<HTMLElement>('body *')) {
            const r = el.getBoundingClientRect();
            if (r.right > w + 1 && r.width > 0 && !el.closest('[data-overflow-ok]'))
              out.push(`${el.tagName.toLowerCase()}${el.dataset.testid ? `[${el.dataset.testid}]` : ''} right=${Math.round(r.right)}`);
          }
          return out.slice(0, 4);
        }, m.client);
        wide.push(`${place.name} at ${width}: scrollWidth ${m.scroll} > ${m.client} (${culprits.join(', ')})`);
      }
    }
  }
  expect(wide, wide.join('\n')).toEqual([]);
});

test('cron: "Next run" fits on one line at 1440 px, and the table fits at 760 px', async ({ page }) => {
  await login(page, svc());
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${svc().url}/#/cron`);
  const cell = page.getByTestId('cron-next-run').first();
  await cell.waitFor();
  const lineHeight = await cell.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 18);
  expect((await cell.boundingBox())!.height).toBeLessThan(lineHeight * 1.6);
  await page.setViewportSize({ width: 760, height: 900 });
  const table = page.getByTestId('view-cron').locator('table').first();
  const fits = await table.evaluate((t) => t.getBoundingClientRect().right <= document.documentElement.clientWidth);
  expect(fits).toBe(true);
});
