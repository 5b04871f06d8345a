import { test as base, expect, type Page } from '@playwright/test';
import type { StartOptions } from '../../src-server/service.js';
import { startE2eService, type E2eService } from './service.js';

/**
 * One service per test file (fresh data dir and port), started in beforeAll; each test
 * gets a page logged in through a one-time link, exactly as a user would.
 */
export function serviceForFile(
  tuning: Record<string, unknown> = {},
  opts: {
    beforeClose?: (svc: E2eService) => Promise<void>;
    start?: () => Pick<StartOptions, 'runtime' | 'preparation' | 'diskLowBytes'>;
    /** BOX_* settings of this file's service alone: set for its start, then put back (a worker runs many files). */
    env?: Record<string, string>;
  } = {},
) {
  let svc: E2eService | undefined;
  base.beforeAll(async () => {
    const before = Object.fromEntries(Object.keys(opts.env ?? {}).map((k) => [k, process.env[k]]));
    Object.assign(process.env, opts.env);
    try {
      svc = await startE2eService(tuning, opts.start?.());
    } finally {
      for (const [k, v] of Object.entries(before)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
  base.afterAll(async () => {
    if (svc && opts.beforeClose) await opts.beforeClose(svc);
    await svc?.close();
  });
  return () => {
    if (!svc) throw new Error('service not started');
    return svc;
  };
}

export async function login(page: Page, svc: E2eService) {
  await page.goto(await svc.loginUrl());
  await expect(page.getByTestId('service-status')).toContainText('service');
}

/** Fails the test on any uncaught page error (a broken view should not pass quietly). */
export const test = base.extend<{ pageErrors: string[] }>({
  pageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await use(errors);
      expect(errors, 'uncaught errors in the page').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/**
 * View screenshots. BOX_E2E_SCREENSHOTS=1 refreshes the committed ones in e2e/screenshots;
 * ordinary runs write to test-results/ so that `npm test` leaves the tree clean.
 */
const SHOT_DIR = process.env.BOX_E2E_SCREENSHOTS === '1' ? 'e2e/screenshots' : 'test-results/screenshots';
export const screenshot = (page: Page, name: string, fullPage = false) => page.screenshot({ path: `${SHOT_DIR}/${name}.png`, fullPage });

/**
 * Documentation screenshots: the page at 1440, 1100 and 760 px in both themes (`ready` awaited
 * at each size). E2E_DOC_SHOTS=1 writes them into docs/screenshots/ (committed; listed by the
 * index scripts/screenshots.ts writes), ordinary runs into test-results/ so the tree stays clean.
 */
export async function docShots(page: Page, name: string, ready: () => Promise<unknown>) {
  const dir = process.env.E2E_DOC_SHOTS === '1' ? 'docs/screenshots' : 'test-results/screenshots';
  const viewport = page.viewportSize();
  for (const theme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    for (const width of [1440, 1100, 760]) {
      await page.setViewportSize({ width, height: 900 });
      await ready();
      await page.screenshot({ path: `${dir}/${name}-${theme}-${width}.png` });
    }
  }
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize(viewport ?? { width: 1440, height: 900 });
}
