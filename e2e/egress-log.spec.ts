import http from 'node:http';
import type net from 'node:net';
import { AppPage } from './pages/app-page.js';
import { PoliciesPage } from './pages/policies-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';
import { terminateAll } from './support/service.js';

// A real microVM: its requests go through its egress proxy and appear live in the box's egress view.
const svc = serviceForFile({}, { beforeClose: terminateAll });
test.setTimeout(900_000);

test('egress: a policy from a preset, and the live egress log of a real box filtered by verdict and host', async ({ page }) => {
  test.skip(!(await svc().has('get', '/v1/http-policies/presets')), 'the policies area is not installed');
  test.skip(!(await svc().has('post', '/v1/boxes')), 'the boxes area is not installed');
  const host = http.createServer((req, res) => res.end(`host saw ${req.url}`));
  const hostPort = await new Promise<number>((r) => host.listen(0, '127.0.0.1', () => r((host.address() as net.AddressInfo).port)));
  try {
    await login(page, svc());
    // Pick a preset instead of writing JSON.
    await new AppPage(page).open('policies');
    const pol = new PoliciesPage(page);
    await pol.startNew();
    await page.getByTestId('preset-local-gateway-only').click();
    await expect(page.getByTestId('policy-name')).toHaveValue('Local inference gateway only');
    await expect(page.getByTestId('policy-document')).toHaveValue(/"host\.box\.internal"/);
    await pol.save();
    await expect(pol.item('Local inference gateway only')).toBeVisible();
    const list = (await (await svc().api('/v1/http-policies')).json()) as { data: Array<{ id: string; name: string }> };
    const policy = list.data.find((p) => p.name === 'Local inference gateway only')!;

    const app = (await (await svc().api('/v1/apps/find', { method: 'POST', json: { name: 'e2e-egress', mint_if_missing: true } })).json()) as { id: string };
    const created = await svc().api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name: 'egress-box', http_policy_id: policy.id } });
    expect(created.status).toBe(200);
    const box = (await created.json()) as { box_id: string };
    await page.goto(`${svc().url}/#/boxes/${box.box_id}/egress`);
    await expect(page.getByTestId('egress-state')).toHaveText('● live', { timeout: 30_000 });

    const exec = (command: string) =>
      svc()
        .api(`/v1/boxes/${box.box_id}/exec`, { method: 'POST', json: { command } })
        .then((r) => r.text());
    // The gateway (its own port, with the box's key from the environment) passes; another port of the host does not.
    await exec(
      `curl -sS -H "Authorization: Bearer $OPENAI_API_KEY" $OPENAI_BASE_URL/models; curl -sS http://host.box.internal:${hostPort}/v1/other-port; curl -sS http://example.com/blocked`,
    );
    const rows = page.getByTestId('egress-row');
    await expect(rows.filter({ hasText: '/v1/models' })).toHaveAttribute('data-verdict', 'allow', { timeout: 60_000 });
    await expect(rows.filter({ hasText: '/v1/other-port' })).toHaveAttribute('data-verdict', 'deny');
    await expect(rows.filter({ hasText: 'example.com' })).toHaveAttribute('data-verdict', 'deny');
    await screenshot(page, 'egress-log');

    await page.getByTestId('egress-verdict').selectOption('deny');
    await expect(rows).toHaveCount(2);
    await expect(rows.first()).toContainText('example.com/blocked');
    // Still live under a filter: a new refusal arrives without a reload.
    await exec('curl -sS http://denied-live.example/x');
    await expect(rows).toHaveCount(3, { timeout: 60_000 });
    await expect(rows.first()).toContainText('denied-live.example');

    await page.getByTestId('egress-verdict').selectOption('');
    await page.getByTestId('egress-host').fill('host.box.internal');
    await expect(rows).toHaveCount(2, { timeout: 10_000 });
    await expect(rows.filter({ hasText: '/v1/models' })).toHaveCount(1);
  } finally {
    host.close();
  }
});
