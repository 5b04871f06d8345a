import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { AppPage } from './pages/app-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';
import type { E2eService } from './support/service.js';

/**
 * Issue 29, "the second hour": what a newcomer still tripped on, each checked in Chromium
 * against the real service. Every state or figure a view shows is read from the API too and
 * compared. Boxes run on the fake runtime (the UI is under test; boxes.spec.ts drives VMs).
 */
const svc = serviceForFile({}, { start: () => ({ runtime: (d: string) => new FakeRuntime(d) }) });

interface BoxRec {
  box_id: string;
  name: string;
  status: string;
  created_at: string;
  http_policy_id: string | null;
  ingress_urls: { guest_port: number; url: string }[];
  last_start: { operation: string; ms: number; from: string | null } | null;
}

async function createBox(s: E2eService, name: string, extra: Record<string, unknown> = {}): Promise<BoxRec> {
  const app = (await (await s.api('/v1/apps/find', { method: 'POST', json: { name: 'second-hour', mint_if_missing: true } })).json()) as { id: string };
  const res = await s.api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name, ...extra } });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as BoxRec;
}
const getBox = async (s: E2eService, id: string) => (await (await s.api(`/v1/boxes/${id}`)).json()) as BoxRec;

test('1. published ports: each with its URL from the API record, a working link and a copy button', async ({ page }) => {
  const box = await createBox(svc(), 'web-app', { ingress_ports: [8080, 9000] });
  const rec = await getBox(svc(), box.box_id);
  expect(rec.ingress_urls.map((u) => u.guest_port)).toEqual([8080, 9000]);
  await login(page, svc());
  await page.goto(`${svc().url}/#/boxes/${box.box_id}`);
  const ports = page.getByTestId('port-url');
  await expect(ports).toHaveCount(2);
  for (const [i, u] of rec.ingress_urls.entries()) {
    await expect(ports.nth(i).getByTestId('port-link')).toHaveAttribute('href', u.url);
    await expect(ports.nth(i).getByTestId('port-link')).toHaveText(u.url);
  }
  expect(rec.ingress_urls[0]!.url).toMatch(/^http:\/\/web-app\.box\.localhost:\d+\/$/);
  expect(rec.ingress_urls[1]!.url).toMatch(/^http:\/\/9000\.web-app\.box\.localhost:\d+\/$/);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await ports.first().getByTestId('port-copy').click();
  await expect(page.getByTestId('toast').filter({ hasText: `Copied ${rec.ingress_urls[0]!.url}` })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(rec.ingress_urls[0]!.url);
  await screenshot(page, 'ports');
});
