import type { Page } from '@playwright/test';
import { BoxesPage } from './pages/boxes-page.js';
import { docShots, expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';
import { terminateAll } from './support/service.js';

// Issue 38 items 2 and 3, in a real microVM: the code tab is a notebook (CodeMirror cells that
// are edited, run again, run all, copied, cleared and deleted; one counter; a marker after a
// restore), and the terminal survives a page reload, keeps its scrollback after the box is
// terminated, and terminating warns about the open shell. One box for both tests.
const svc = serviceForFile({}, { beforeClose: terminateAll, env: { BOX_CODE_WARM: '1' } });
test.setTimeout(900_000);
let boxId = '';

test.beforeAll(async () => {
  test.setTimeout(900_000);
  const app = (await (await svc().api('/v1/apps/find', { method: 'POST', json: { name: 'e2e-notebook', mint_if_missing: true } })).json()) as {
    id: string;
  };
  const res = await svc().api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name: 'nb' } });
  const body = (await res.json()) as { box_id: string; status: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body.status).toBe('running');
  boxId = body.box_id;
});

async function openTab(page: Page, tab: string) {
  await login(page, svc());
  await page.goto(`${svc().url}/#/boxes/${boxId}/${tab}`);
  await expect(page.getByTestId('box-title')).toHaveText('nb');
}

const counts = async (page: Page) => page.getByTestId('code-count').allInnerTexts();

test('notebook: cells are highlighted editors; edit and re-run, run all, copy, clear, delete; one counter; a marker after a restore', async ({ page }) => {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await openTab(page, 'code');
  const input = page.getByTestId('code-input');
  const cells = page.getByTestId('code-cell');
  await input.fill('x = 20\nprint("x is", x)');
  await input.press('Shift+Enter');
  await expect(cells.nth(0).getByTestId('code-output')).toContainText('x is 20', { timeout: 300_000 });
  // the composer is empty again, ready for the next cell
  await expect(input.locator('.cm-placeholder')).toHaveText('python code — Shift+Enter runs');

  await page.getByTestId('code-language').selectOption('javascript');
  await input.fill('const y = 2; console.log("js", y)');
  await input.press('Shift+Enter');
  await expect(cells.nth(1).getByTestId('code-output')).toContainText('js 2', { timeout: 180_000 });
  await page.getByTestId('code-language').selectOption('python');
  await input.fill('print(x * 2)');
  await page.getByTestId('code-run').click();
  await expect(cells.nth(2).getByTestId('code-output')).toContainText('40', { timeout: 120_000 });
  // one counter for the notebook: JavaScript's first run is [2], not a second [1]
  await expect.poll(() => counts(page)).toEqual(['[1]', '[2]', '[3]']); // the output shows while the cell still runs ([*])

  // syntax highlighting: the string and the keyword are coloured tokens
  const editor0 = cells.nth(0).getByTestId('code-cell-editor');
  const str = editor0.locator('span', { hasText: '"x is"' }).last();
  await expect(str).toHaveCSS('color', 'rgb(165, 224, 117)');
  await expect(
    cells
      .nth(1)
      .getByTestId('code-cell-editor')
      .locator('span', { hasText: /^const$/ }),
  ).toHaveCSS('color', 'rgb(199, 146, 234)');

  // edit a cell in place and run it again: new output, the next number
  await editor0.fill('x = 21\nprint("x is", x)');
  await expect(cells.nth(0)).toHaveAttribute('data-edited', 'true');
  await editor0.press('Shift+Enter');
  await expect(cells.nth(0).getByTestId('code-output')).toContainText('x is 21', { timeout: 120_000 });
  await expect(cells.nth(0)).toHaveAttribute('data-edited', 'false');
  await expect.poll(() => counts(page)).toEqual(['[4]', '[2]', '[3]']);

  // run all, in order: the last cell sees the edited x
  await page.getByTestId('code-run-all').click();
  await expect(cells.nth(2).getByTestId('code-output')).toHaveText('42', { timeout: 180_000 });
  await expect.poll(() => counts(page)).toEqual(['[5]', '[6]', '[7]']);

  // copy a cell's code
  await cells.nth(1).getByTestId('code-cell-copy').click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('const y = 2; console.log("js", y)');

  // clear outputs, then delete a cell
  await page.getByTestId('code-clear-outputs').click();
  await expect(page.getByTestId('code-output').filter({ hasText: /./ })).toHaveCount(0);
  await expect.poll(() => counts(page)).toEqual(['[ ]', '[ ]', '[ ]']);
  await cells.nth(1).getByTestId('code-cell-delete').click();
  await expect(cells).toHaveCount(2);
  await expect(cells.nth(1).getByTestId('code-cell-editor')).toHaveText('print(x * 2)');

  // a restore: checkpoint (x = 21), change x, restore; the notebook marks it and keeps counting
  await cells.nth(0).getByTestId('code-cell-run').click();
  await expect(cells.nth(0).getByTestId('code-output')).toContainText('x is 21', { timeout: 120_000 });
  const cp = await svc().api(`/v1/boxes/${boxId}/checkpoint`, { method: 'POST', json: { name: 'x21' } });
  const checkpoint = (await cp.json()) as { checkpoint_id: string; status: string };
  expect(cp.status, JSON.stringify(checkpoint)).toBe(200);
  await expect
    .poll(async () => ((await (await svc().api(`/v1/box-checkpoints/${checkpoint.checkpoint_id}`)).json()) as { status: string }).status, { timeout: 300_000 })
    .toBe('ready');
  await input.fill('x = 99');
  await input.press('Shift+Enter');
  await expect(page.getByTestId('code-count').last()).toHaveText('[9]', { timeout: 120_000 });
  const restored = await svc().api(`/v1/boxes/${boxId}/restore`, { method: 'POST', json: { checkpoint_id: checkpoint.checkpoint_id } });
  expect(restored.status, await restored.clone().text()).toBe(200);
  await expect(page.getByTestId('code-marker')).toContainText('restored to a checkpoint', { timeout: 60_000 });
  // the box's facts name the checkpoint it stands on now (taken outside the page: read when seen)
  await expect(page.getByTestId('box-on-checkpoint')).toHaveText('x21');
  await expect(page.getByTestId('box-on-checkpoint')).toHaveAttribute('data-id', checkpoint.checkpoint_id);
  await input.fill('print("after", x)');
  await input.press('Shift+Enter');
  await expect(cells.last().getByTestId('code-output')).toContainText('after 21', { timeout: 300_000 });
  // the output shows while the cell still runs ([*]); its count comes with its end
  await expect.poll(async () => (await counts(page)).filter((c) => c !== '[ ]'), { timeout: 60_000 }).toEqual(['[8]', '[9]', '[10]']);
  const all = (await counts(page)).filter((c) => c !== '[ ]');
  expect(new Set(all).size).toBe(all.length);
  await screenshot(page, 'box-notebook');
  await docShots(page, 'notebook-session', () => page.getByTestId('code-marker').scrollIntoViewIfNeeded());

  // it all stays when the page is opened again
  await page.reload();
  await expect(page.getByTestId('code-cell')).toHaveCount(4);
  await expect(page.getByTestId('code-marker')).toHaveCount(1);
});

test('terminal: a reload re-attaches to the running shell with its scrollback; terminating warns and keeps the text, read-only', async ({ page }) => {
  await openTab(page, 'terminal');
  const boxes = new BoxesPage(page);
  await boxes.openShell();
  await boxes.type('export MARK=kept-$((6*7)); echo "before reload $MARK"');
  await expect(boxes.terminalText()).toContainText('before reload kept-42', { timeout: 60_000 });

  await page.reload();
  await expect(page.getByTestId('terminal-panel')).toHaveAttribute('data-state', 'open', { timeout: 60_000 });
  await expect(page.getByTestId('terminal-panel')).toHaveAttribute('data-reattached', 'true');
  // the output from before the reload is back (replayed) ...
  await expect(boxes.terminalText()).toContainText('before reload kept-42');
  // ... and it is the same shell: its variable is still set, and keys reach it
  await page.locator('[data-testid="terminal"] .xterm').click();
  await boxes.type('echo "same shell $MARK"');
  await expect(boxes.terminalText()).toContainText('same shell kept-42', { timeout: 60_000 });
  // the box's open shells are listed, this one marked as shown here
  await expect(page.locator('[data-testid=terminal-shell][data-mine=true]')).toHaveCount(1, { timeout: 15_000 });

  // terminating asks, and says that the open shell ends
  await page.getByTestId('action-terminate').click();
  await expect(page.getByTestId('confirm-text')).toContainText('A shell is open in it');
  await page.getByTestId('confirm-yes').click();
  await expect(page.getByTestId('box-new')).toBeVisible({ timeout: 120_000 });
  // back on the terminated box's terminal: the scrollback is there, read-only
  await page.goto(`${svc().url}/#/boxes/${boxId}/terminal`);
  await expect(page.getByTestId('box-status')).toContainText('terminated', { timeout: 60_000 });
  await expect(page.getByTestId('terminal')).toHaveAttribute('data-readonly', 'true');
  await expect(boxes.terminalText()).toContainText('same shell kept-42');
  await expect(page.getByTestId('terminal-note')).toContainText('read-only');
  // and after a reload too
  await page.reload();
  await expect(boxes.terminalText()).toContainText('before reload kept-42');
  await expect(boxes.terminalText()).toContainText('same shell kept-42');
  await expect(page.getByTestId('terminal')).toHaveAttribute('data-readonly', 'true');
  await screenshot(page, 'box-terminal-after-terminate');
});
