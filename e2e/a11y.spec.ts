import AxeBuilder from '@axe-core/playwright';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { expect, login, serviceForFile, test } from './support/fixtures.js';
import { seedEveryView, visit, type Place } from './support/every-view.js';

/**
 * The accessibility pass (issue 38): axe-core on every view, box tab, settings section and
 * dialog, in the dark and the light theme; no serious or critical violation (WCAG 2 A/AA,
 * colour contrast included). A fake runtime: the check is of the UI.
 */
const svc = serviceForFile({}, { start: () => ({ runtime: (d: string) => new FakeRuntime(d) }) });
let places: Place[];
test.beforeAll(async () => {
  places = await seedEveryView(svc());
});

for (const theme of ['dark', 'light'] as const) {
  test(`axe: no serious or critical violations in any view, ${theme} theme`, async ({ page }) => {
    // ~1 min on a quiet machine; the limit leaves room for a loaded one
    test.setTimeout(600_000);
    await page.emulateMedia({ colorScheme: theme });
    await login(page, svc());
    const found: string[] = [];
    for (const place of places) {
      await visit(page, svc(), place);
      const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      for (const v of result.violations.filter((x) => x.impact === 'serious' || x.impact === 'critical')) {
        found.push(
          `${place.name}: [${v.impact}] ${v.id}: ${v.help}\n    ${v.nodes.map((n) => `${n.target.join(' ')} ${n.failureSummary?.split('\n')[1] ?? ''}`).join('\n    ')}`,
        );
      }
    }
    expect(found, found.join('\n')).toEqual([]);
  });
}
