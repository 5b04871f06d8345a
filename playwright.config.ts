import { defineConfig } from '@playwright/test';

/**
 * e2e against the real service and the built renderer (`npm run build` first; the
 * fixtures build nothing). Debian's chromium: Playwright's own browser download does
 * not work here (architecture.md, Toolchain).
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  timeout: 120_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 2,
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1360, height: 860 },
    // The app follows the system theme; dark is its primary look (light-theme shots opt in).
    colorScheme: 'dark',
    acceptDownloads: true,
    // A click that cannot happen fails in 2 minutes, not at a long test's timeout.
    actionTimeout: 120_000,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.BOX_E2E_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--no-first-run',
      ],
    },
  },
});
