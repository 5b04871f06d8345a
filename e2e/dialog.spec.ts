import { AppPage } from './pages/app-page.js';
import { expect, login, serviceForFile, test } from './support/fixtures.js';

const svc = serviceForFile();

// ui/Dialog.tsx is a native <dialog> opened with showModal(): the browser keeps focus inside
// it, Esc closes it, and the focus goes back to the button that opened it.
test('a dialog is modal: focus stays inside, Esc, the backdrop and its Esc button close it, focus returns to the opener', async ({ page }) => {
  await login(page, svc());
  await new AppPage(page).paletteGo('Settings');
  await page.getByTestId('view-settings').waitFor();
  const opener = page.getByTestId('create-key');
  const dialog = page.getByTestId('create-key-dialog');
  // Tab cycles through the dialog and, natively, past its end to the window (the browser's
  // own UI; the body here) and back: never to an element of the page behind it.
  const focusNotBehind = () => dialog.evaluate((d) => d.contains(document.activeElement) || document.activeElement === document.body);

  await opener.click();
  await expect(dialog).toBeVisible();
  expect(await dialog.evaluate((d) => d.tagName === 'DIALOG' && d.matches(':modal'))).toBe(true);
  await expect(page.getByRole('dialog', { name: 'New API key' })).toBeVisible();
  await expect(dialog.getByTestId('key-name')).toBeFocused();
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Tab');
    expect(await focusNotBehind(), `Tab ${i + 1}`).toBe(true);
  }
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Shift+Tab');
    expect(await focusNotBehind(), `Shift+Tab ${i + 1}`).toBe(true);
  }
  await dialog.getByTestId('key-name').focus();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(opener).toBeFocused();

  await opener.click();
  await expect(dialog).toBeVisible();
  // a press on the backdrop closes it (the page behind is inert: nothing there is clicked)
  await page.mouse.click(8, 8);
  await expect(dialog).toHaveCount(0);

  await opener.click();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(opener).toBeFocused();
});
