import type { Page, Request } from '@playwright/test';
import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { AppPage } from './pages/app-page.js';
import { expect, login, serviceForFile, test } from './support/fixtures.js';

/**
 * Issue 38, item 9 (raw validation text and silent no-ops) and item 7 (a theme switch), as a
 * user meets them in Chromium. Boxes run on the fake runtime; prompts go to the built-in
 * test engine (box/echo).
 */
const svc = serviceForFile({}, { start: () => ({ runtime: (d: string) => new FakeRuntime(d) }) });

/** The POSTs the page makes to paths matching `re`, from now on. */
function posts(page: Page, re: RegExp) {
  const seen: string[] = [];
  const on = (r: Request) => {
    if (r.method() === 'POST' && re.test(new URL(r.url()).pathname)) seen.push(new URL(r.url()).pathname);
  };
  page.on('request', on);
  return seen;
}

const RAW_ZOD = /Too (small|big)|expected (string|number|array)|Invalid (input|option|string)/;

test('9. box names are checked as you type, before Create; an app name the service refuses is said in words at the App field', async ({ page }) => {
  await login(page, svc());
  const creates = posts(page, /^\/v1\/(boxes|apps\/find)$/);
  await new AppPage(page).open('boxes');
  await page.getByTestId('box-new').click();
  const dialog = page.getByTestId('create-box-dialog');
  const name = dialog.getByTestId('box-name');
  const submit = dialog.getByTestId('create-box-submit');

  await expect(submit).toBeDisabled(); // no name yet
  for (const [typed, says] of [
    ['my_box', 'Name may contain only lowercase letters, digits and "-".'],
    ['-web', 'Name must start and end with a letter or digit.'],
    ['web-', 'Name must start and end with a letter or digit.'],
    ['a'.repeat(64), 'Name must be at most 63 characters long.'],
  ] as const) {
    await name.fill(typed);
    await expect(dialog.getByTestId('field-error')).toHaveText(says);
    await expect(name).toHaveAttribute('aria-invalid', 'true');
    await expect(submit).toBeDisabled();
    await name.press('Enter'); // the form's submit: refused too
  }
  await name.fill('Web-1'); // upper case is lowered as typed
  await expect(name).toHaveValue('web-1');
  await expect(dialog.getByTestId('field-error')).toHaveCount(0);
  await expect(name).not.toHaveAttribute('aria-invalid', /./);
  expect(creates, 'nothing was sent while the name was invalid').toEqual([]);

  // An empty app name is said at the App field, Create stays off.
  const app = dialog.getByTestId('box-app');
  await app.fill('');
  await expect(dialog.getByTestId('field-error')).toHaveText('App name is required: boxes are grouped by app.');
  await expect(submit).toBeDisabled();
  // One the service refuses (too long): its 400 in words, at the App field, not zod's text.
  await app.fill('x'.repeat(130));
  await expect(submit).toBeEnabled();
  await submit.click();
  await expect(dialog.getByTestId('field-error')).toHaveText('App name must be at most 128 characters long.');
  await expect(dialog.getByText(RAW_ZOD)).toHaveCount(0);
  expect(creates).toEqual(['/v1/apps/find']);

  // A good name and app: the box is made.
  await app.fill('validation');
  await submit.click();
  await expect(page.getByTestId('box-title')).toHaveText('web-1', { timeout: 60_000 });
  expect(creates).toEqual(['/v1/apps/find', '/v1/apps/find', '/v1/boxes']);
});

test('9. volumes: Create with no name says so at the field and sends nothing; a name the service refuses gets words, not zod text', async ({ page }) => {
  await login(page, svc());
  const creates = posts(page, /^\/v1\/(box-)?volumes$/);
  const count = async () => ((await (await svc().api('/v1/box-volumes')).json()) as { data: unknown[] }).data.length;
  const before = await count();
  await new AppPage(page).open('volumes');
  await page.getByTestId('volume-create').click();
  await expect(page.getByTestId('volume-name-missing')).toHaveText(/Give the volume a name/);
  await expect(page.getByTestId('volume-name')).toHaveAttribute('aria-invalid', 'true');
  expect(creates).toEqual([]);
  expect(await count()).toBe(before);

  await page.getByTestId('volume-name').fill('x'.repeat(130));
  await expect(page.getByTestId('volume-name-missing')).toHaveCount(0);
  await page.getByTestId('volume-create').click();
  await expect(page.getByTestId('error')).toHaveText('Name must be at most 128 characters long.');
  await expect(page.getByText(RAW_ZOD)).toHaveCount(0);
  expect(await count()).toBe(before);

  await page.getByTestId('volume-name').fill('notes');
  await page.getByTestId('volume-create').click();
  await expect(page.getByTestId('volume-list')).toContainText('notes');
  expect(await count()).toBe(before + 1);
});

test('9. an empty prompt is not sent to the model: the playground disables Send and says why; the chat says so and sends nothing', async ({ page }) => {
  await login(page, svc());
  const calls = posts(page, /^\/v1\/(responses|chat\/completions|messages)$/);
  const nav = new AppPage(page);

  await nav.open('playground');
  const send = page.getByTestId('send');
  await expect(send).toBeEnabled(); // the default prompt and the first model
  for (const empty of ['', '   \n  ']) {
    await page.getByTestId('prompt').fill(empty);
    await expect(send).toBeDisabled();
    await expect(page.getByTestId('error')).toHaveText('Write a prompt first: an empty one is not sent to the model.');
  }
  await page.getByTestId('prompt').fill('hello there');
  await expect(send).toBeEnabled();
  await expect(page.getByTestId('error')).toHaveCount(0);
  expect(calls).toEqual([]);
  await send.click();
  await expect.poll(() => calls.length).toBe(1);

  await nav.open('chat');
  await expect(page.getByTestId('chat-model')).toHaveValue('box/echo');
  await page.getByTestId('chat-input').fill('   ');
  await page.getByTestId('chat-send').click();
  await expect(page.getByTestId('chat-note')).toContainText('empty message is not sent');
  await expect(page.getByTestId('chat-turn')).toHaveCount(0);
  expect(calls).toHaveLength(1);
});

test('7. theme: light, dark and system in the sidebar, kept across a reload; "dark" in the command palette switches to dark', async ({ page }) => {
  await login(page, svc());
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const LIGHT = 'rgb(246, 247, 250)';
  const switcher = page.getByRole('radiogroup', { name: 'Theme' });
  await expect(switcher.getByRole('radio')).toHaveCount(3);
  await expect(page.getByTestId('theme-system')).toHaveAttribute('aria-checked', 'true'); // the default
  const dark = await bg(); // the browser's scheme is dark (playwright.config.ts)
  expect(dark).not.toBe(LIGHT);

  await page.getByTestId('theme-light').click();
  await expect.poll(bg).toBe(LIGHT);
  await expect(page.getByTestId('theme-light')).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByTestId('theme-system')).toHaveAttribute('aria-checked', 'false');
  await page.reload();
  await expect(page.getByTestId('theme-light')).toHaveAttribute('aria-checked', 'true');
  expect(await bg()).toBe(LIGHT);

  // The palette finds the theme by "dark".
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('dark');
  await expect(page.getByTestId('palette-item').first()).toContainText('Theme: dark');
  await page.keyboard.press('Enter');
  await expect.poll(bg).toBe(dark);
  await expect(page.getByTestId('theme-dark')).toHaveAttribute('aria-checked', 'true');
  await page.reload();
  await expect(page.getByTestId('theme-dark')).toHaveAttribute('aria-checked', 'true');
  expect(await bg()).toBe(dark);
  // Dark holds even when the system turns light.
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await bg()).toBe(dark);

  // System follows the browser again, live.
  await page.getByTestId('theme-system').click();
  await expect.poll(bg).toBe(LIGHT);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect.poll(bg).toBe(dark);
  await page.reload();
  await expect(page.getByTestId('theme-system')).toHaveAttribute('aria-checked', 'true');
});
