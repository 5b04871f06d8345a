import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { AppPage } from './pages/app-page.js';
import { expect, login, serviceForFile, test } from './support/fixtures.js';

/**
 * A box's inference budget (issue 10): set in the New box dialog, shown in the box detail
 * with what the box has used through the gateway, and changed there. Boxes run on the fake
 * runtime; the tokens are spent by real gateway requests made as the box (the credential its
 * egress proxy adds), answered by the built-in test engine.
 */
const svc = serviceForFile({}, { start: () => ({ runtime: (d: string) => new FakeRuntime(d) }) });

test('budget: set when creating a box, shown with what is spent, refused when spent, raised to unlimited', async ({ page }) => {
  await login(page, svc());
  await new AppPage(page).open('boxes');
  await page.getByTestId('box-new').click();
  const dialog = page.getByTestId('create-box-dialog');
  await dialog.getByTestId('box-name').fill('budget-box');
  await dialog.getByTestId('box-budget-input').fill('lots');
  await expect(dialog.getByTestId('field-error')).toContainText('whole number of tokens');
  await expect(dialog.getByTestId('create-box-submit')).toBeDisabled();
  await dialog.getByTestId('box-budget-input').fill('20');
  await dialog.getByTestId('create-box-submit').click();
  await expect(page.getByTestId('box-title')).toHaveText('budget-box', { timeout: 60_000 });
  await expect(page.getByTestId('box-budget')).toContainText('0 of 20 tokens');

  const list = (await (await svc().api('/v1/boxes?search=budget-box')).json()) as { data: Array<{ box_id: string; inference_budget_tokens: number | null }> };
  const box = list.data[0]!;
  expect(box.inference_budget_tokens).toBe(20);
  const asBox = () =>
    fetch(`${svc().url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...svc().ctx.services.boxCredentials.internalAuthFor(box.box_id) },
      body: JSON.stringify({ model: 'box/echo', input: 'one two three' }),
    });
  for (let i = 0; i < 3; i++) expect((await asBox()).status).toBe(200); // 8 tokens each: 24, over 20
  expect((await asBox()).status).toBe(429);
  await expect(page.getByTestId('box-budget')).toContainText('24 of 20 tokens', { timeout: 15_000 });

  await page.getByTestId('budget-edit').click();
  await page.getByTestId('budget-input').fill('');
  await page.getByTestId('budget-save').click();
  await expect(page.getByTestId('box-budget')).toContainText('24 used, unlimited');
  expect((await asBox()).status).toBe(200);
});
