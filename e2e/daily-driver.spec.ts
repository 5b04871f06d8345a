import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { docShots, expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';

/**
 * Issue 38 (the app as a daily driver), on a fake runtime: confirmations that can be seen
 * and answered from the keyboard (item 6), forks that get a free name, relative times that
 * tick, Sleep offered only where it changes something (item 12).
 */
const svc = serviceForFile({}, { start: () => ({ runtime: (d: string) => new FakeRuntime(d) }) });

async function post(path: string, json: unknown = {}) {
  const res = await svc().api(path, { method: 'POST', json });
  expect(res.status, path).toBe(200);
  return res.json();
}
const status = async (id: string) => ((await (await svc().api(`/v1/boxes/${id}`)).json()) as { status: string }).status;
let app: string;
const newBox = async (name: string) => {
  app ??= (await post('/v1/apps/find', { name: 'daily', mint_if_missing: true })).id;
  return (await post('/v1/boxes', { app_id: app, name })) as { box_id: string };
};

test('Sleep asks visibly (a popover with the consequence) until answered; Escape cancels, Enter confirms; then Sleep is greyed out', async ({ page }) => {
  const box = await newBox('confirm-me');
  await login(page, svc());
  await page.evaluate((h) => (location.hash = h), `#/boxes/${box.box_id}`);
  await expect(page.getByTestId('box-status')).toHaveAttribute('data-status', 'running');

  await page.getByTestId('action-sleep').click();
  const pop = page.getByTestId('confirm-popover');
  await expect(pop).toBeVisible();
  await expect(pop).toHaveAttribute('role', 'alertdialog');
  await expect(pop.getByTestId('confirm-text')).toContainText('wakes by itself on exec, files, ingress or cron');
  await expect(pop.getByTestId('confirm-yes')).toBeFocused();
  await docShots(page, 'box-confirm-sleep', () => expect(pop).toBeVisible());
  // The question does not vanish by itself (it used to revert silently after 4 s).
  await page.waitForTimeout(5000);
  await expect(pop).toBeVisible();
  expect(await status(box.box_id)).toBe('running');

  await page.keyboard.press('Escape');
  await expect(pop).toBeHidden();
  await expect(page.getByTestId('action-sleep')).toBeFocused();
  await expect(page.getByTestId('action-sleep')).toHaveText('Sleep');
  expect(await status(box.box_id)).toBe('running');

  // Cancel with the mouse, then confirm with the keyboard alone.
  await page.getByTestId('action-sleep').click();
  await pop.getByTestId('confirm-cancel').click();
  await expect(pop).toBeHidden();
  expect(await status(box.box_id)).toBe('running');
  await page.getByTestId('action-sleep').focus();
  await page.keyboard.press('Enter');
  await expect(pop.getByTestId('confirm-yes')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect.poll(() => status(box.box_id)).toBe('sleeping');

  // Sleep on a sleeping box changes nothing: greyed out, as the state machine table says.
  await expect(page.getByTestId('box-status')).toHaveAttribute('data-status', 'sleeping');
  await expect(page.getByTestId('action-sleep')).toBeDisabled();
  await expect(page.getByTestId('action-resume')).toBeEnabled();
});

test('a second fork gets a free name (<name>-fork-2), not a 409', async ({ page, pageErrors }) => {
  const box = await newBox('forky');
  await login(page, svc());
  await page.evaluate((h) => (location.hash = h), `#/boxes/${box.box_id}/checkpoints`);
  const lineage = page.getByTestId('lineage');
  // The fork form's name field (no test id needed: the old view had none).
  const forkName = lineage
    .locator('form')
    .filter({ has: page.getByTestId('fork') })
    .locator('input');
  await expect(forkName).toHaveValue('forky-fork');
  await page.getByTestId('fork').click();
  // a fork is linked twice: in the tree, and beside the checkpoint it is on
  await expect(lineage.getByRole('link', { name: 'forky-fork', exact: true }).first()).toBeVisible();
  await expect(forkName).toHaveValue('forky-fork-2');
  await page.getByTestId('fork').click();
  await expect(lineage.getByRole('link', { name: 'forky-fork-2', exact: true }).first()).toBeVisible();
  await expect(lineage.getByTestId('error')).toHaveCount(0);
  const names = ((await (await svc().api('/v1/boxes?limit=100')).json()).data as { name: string }[]).map((b) => b.name);
  expect(names).toEqual(expect.arrayContaining(['forky-fork', 'forky-fork-2']));
  expect(pageErrors).toEqual([]);
});

test('after a restore in place the lineage marks the checkpoint the box went back to (the service records it), not its latest', async ({
  page,
  pageErrors,
}) => {
  const box = await newBox('went-back');
  const base = (await post(`/v1/boxes/${box.box_id}/checkpoint`, { name: 'base' })) as { checkpoint_id: string };
  const later = (await post(`/v1/boxes/${box.box_id}/checkpoint`, { name: 'later' })) as { checkpoint_id: string };
  await login(page, svc());
  await page.evaluate((h) => (location.hash = h), `#/boxes/${box.box_id}/checkpoints`);
  const node = (id: string) => page.locator(`[data-testid="checkpoint-node"][data-id="${id}"]`);
  const here = (id: string) =>
    node(id)
      .getByTestId('checkpoint-here')
      .and(page.locator(`[data-box="${box.box_id}"]`));
  await expect(here(later.checkpoint_id)).toHaveText('went-back is here');
  await expect(here(base.checkpoint_id)).toHaveCount(0);

  await node(base.checkpoint_id).getByTestId('checkpoint-restore-in-place').click();
  await page.getByTestId('restore-confirm').click();
  await expect(page.getByTestId('toast').filter({ hasText: 'restored to base' })).toBeVisible();
  // The box is back on "base": the marker moves there, the summary and the box's facts say so.
  await expect(here(base.checkpoint_id)).toHaveText('went-back is here');
  await expect(here(later.checkpoint_id)).toHaveCount(0);
  await expect(node(base.checkpoint_id)).toHaveAttribute('data-current', 'true');
  await expect(page.getByTestId('on-checkpoint')).toContainText('went-back is on checkpoint base');
  await expect(page.getByTestId('box-on-checkpoint')).toHaveAttribute('data-id', base.checkpoint_id);
  await docShots(page, 'box-lineage-restored', () => expect(here(base.checkpoint_id)).toBeVisible());
  // ...and stays so after a reload (it is the service's record, not the page's memory).
  await page.reload();
  await expect(here(base.checkpoint_id)).toHaveText('went-back is here');
  await expect(here(later.checkpoint_id)).toHaveCount(0);
  const api = (await (await svc().api(`/v1/boxes/${box.box_id}`)).json()) as { on_checkpoint_id: string; checkpoint_generation: number };
  expect(api).toMatchObject({ on_checkpoint_id: base.checkpoint_id, checkpoint_generation: 2 });
  expect(pageErrors).toEqual([]);
});

test('relative times tick: a new volume\'s "created 0s ago" moves on without a refresh', async ({ page }) => {
  await post('/v1/box-volumes', { name: 'ticking' });
  await login(page, svc());
  await page.evaluate((h) => (location.hash = h), '#/volumes');
  // By its text, not a test id (the old view had none): "local · created 0s ago".
  const item = page.locator('[data-testid="volume-item"][data-name="ticking"]');
  await expect(item).toContainText(/created \d+s ago/);
  const ago = async () => /created (\d+s ago)/.exec((await item.textContent()) ?? '')?.[1];
  const first = await ago();
  await expect.poll(ago, { timeout: 8000 }).not.toBe(first);
});

test('theme: light / dark / system from the sidebar (kept across reloads) and from the palette ("dark", "light", "theme")', async ({ page }) => {
  await login(page, svc());
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const dark = await bg(); // the browser's scheme is dark (playwright.config.ts)
  await expect(page.getByTestId('theme-system')).toHaveAttribute('aria-checked', 'true');

  await page.getByTestId('theme-light').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect.poll(bg).toBe('rgb(246, 247, 250)');
  await expect(page.getByTestId('theme-light')).toHaveAttribute('aria-checked', 'true');
  await screenshot(page, 'theme-light');
  await page.reload();
  await expect(page.getByTestId('theme-light')).toHaveAttribute('aria-checked', 'true');
  expect(await bg()).toBe('rgb(246, 247, 250)');

  // The palette: "theme" lists the three, "dark" finds dark.
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('theme');
  await expect(page.getByTestId('palette-item')).toHaveText([/Theme: light/, /Theme: dark/, /Theme: follow the system/]);
  await page.getByTestId('palette-input').fill('dark');
  await expect(page.getByTestId('palette-item').first()).toContainText('Theme: dark');
  await page.keyboard.press('Enter');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect.poll(bg).toBe(dark);
  expect(await page.evaluate(() => localStorage.getItem('box-desktop.theme'))).toBe('dark');

  // "System" follows the browser again: light when the system is light.
  await page.getByTestId('theme-system').click();
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', /./);
  await page.emulateMedia({ colorScheme: 'light' });
  await expect.poll(bg).toBe('rgb(246, 247, 250)');
  await page.getByTestId('theme-dark').click();
  await expect.poll(bg).toBe(dark);
});

test('volumes: Create with no name says so at the field; a bad name gets a human message, not zod text', async ({ page }) => {
  await login(page, svc());
  await page.evaluate((h) => (location.hash = h), '#/volumes');
  await page.getByTestId('volume-create').click();
  await expect(page.getByTestId('volume-name-missing')).toContainText('Give the volume a name');
  await expect(page.getByTestId('volume-name')).toHaveAttribute('aria-invalid', 'true');
  await page.getByTestId('volume-name').fill('x'.repeat(130));
  await expect(page.getByTestId('volume-name-missing')).toHaveCount(0);
  await page.getByTestId('volume-create').click();
  await expect(page.getByTestId('error')).toHaveText('Name must be at most 128 characters long.');
  await expect(page.getByText(/Too big|expected string/)).toHaveCount(0);
});
