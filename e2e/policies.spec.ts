import { AppPage } from './pages/app-page.js';
import { PoliciesPage } from './pages/policies-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';
import { terminateAll } from './support/service.js';

const svc = serviceForFile({}, { beforeClose: terminateAll });
test.setTimeout(900_000);

const doc = (host: string) =>
  JSON.stringify(
    {
      'api.example.com': { rules: [{ match: { method: 'GET', path: { prefix: '/v1/' } } }] },
      [host]: { rules: [{ respond: { status: 403, body: 'no' } }] },
    },
    null,
    2,
  );

test('policies: an invalid host is shown inline at its line; fixed, saved, and attached to a box', async ({ page }) => {
  test.skip(!(await svc().has('post', '/v1/http-policies')), 'the policies area is not installed');
  await login(page, svc());
  await new AppPage(page).open('policies');
  const pol = new PoliciesPage(page);
  await pol.startNew();

  const bad = doc('bad_host!.example');
  await pol.edit('e2e-policy', bad);
  await pol.save();
  await expect(pol.fieldError()).toContainText('bad_host!.example');
  const expectedLine = bad.split('\n').findIndex((l) => l.includes('"bad_host!.example"')) + 1;
  await expect(pol.fieldError()).toHaveAttribute('data-line', String(expectedLine));
  await expect(pol.errorLine()).toHaveText(String(expectedLine));
  await screenshot(page, 'policies-error');

  await pol.edit('e2e-policy', doc('*.example.org'));
  await expect(pol.fieldError()).toHaveCount(0);
  await pol.save();
  await expect(pol.item('e2e-policy')).toBeVisible();
  await expect(page.getByTestId('policy-boxes')).toBeVisible();
  const list = (await (await svc().api('/v1/http-policies')).json()) as { data: Array<{ id: string; name: string; document: Record<string, unknown> }> };
  const saved = list.data.find((p) => p.name === 'e2e-policy')!;
  expect(Object.keys(saved.document)).toEqual(['api.example.com', '*.example.org']);

  // Attach it to a real box (created through the API; the boxes spec covers the UI path).
  test.skip(!(await svc().has('post', '/v1/boxes')), 'the boxes area is not installed');
  const app = (await (await svc().api('/v1/apps/find', { method: 'POST', json: { name: 'e2e', mint_if_missing: true } })).json()) as { id: string };
  const created = await svc().api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name: 'policy-box' } });
  expect(created.status).toBe(200);
  const box = (await created.json()) as { box_id: string };
  await expect(page.getByTestId('attach-box-select').locator(`option[value="${box.box_id}"]`)).toHaveCount(1, { timeout: 30_000 });
  await pol.attachTo(box.box_id);
  await expect(pol.usedBy('policy-box')).toBeVisible();
  const attached = (await (await svc().api(`/v1/boxes/${box.box_id}/http-policy`)).json()) as { id: string };
  expect(attached.id).toBe(saved.id);
  await screenshot(page, 'policies');
});
