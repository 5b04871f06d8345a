import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { inZone, nextRuns } from '../src-renderer/views/cron/next-runs.js';
import { readExecStream } from '../src-server/test-support/exec-stream.js';
import { AppPage } from './pages/app-page.js';
import { VolumesPage } from './pages/volumes-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';
import { terminateAll, type E2eService } from './support/service.js';

// One real box shared by the files and cron views.
const svc = serviceForFile({}, { beforeClose: terminateAll });
test.setTimeout(900_000);
test.describe.configure({ mode: 'serial' });
let boxId = '';

async function ensureBox(s: E2eService) {
  if (boxId) return boxId;
  const app = (await (await s.api('/v1/apps/find', { method: 'POST', json: { name: 'e2e', mint_if_missing: true } })).json()) as { id: string };
  const res = await s.api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name: 'files-box' } });
  expect(res.status, await res.clone().text()).toBe(200);
  boxId = ((await res.json()) as { box_id: string }).box_id;
  return boxId;
}

test('files: browse a box, drop a file into /tmp, see its mode, download it back', async ({ page }) => {
  test.skip(!(await svc().has('get', '/v1/boxes/{box_id}/directories')), 'the box files API is not installed');
  const id = await ensureBox(svc());
  await login(page, svc());
  await new AppPage(page).open('files');
  await page.getByTestId('files-box').filter({ hasText: 'files-box' }).click();
  const browser = new VolumesPage(page); // same browser component and drop zone
  // A box's files open in its home (/root); the first breadcrumb is the root.
  await expect(page.getByTestId('breadcrumbs')).toContainText('root');
  await page.getByTestId('breadcrumbs').getByRole('button').first().click();
  await browser.entry('tmp').getByRole('button', { name: 'tmp/' }).click();
  await expect(page.getByTestId('breadcrumbs')).toContainText('tmp');

  const bytes = randomBytes(200_000);
  await browser.drop(await browser.dataTransfer([{ name: 'dropped.bin', bytes }]));
  await expect(browser.transfer('dropped.bin')).toHaveAttribute('data-status', 'done');
  await expect(browser.entry('dropped.bin').getByTestId('entry-size')).toHaveText('195 KiB');
  await expect(browser.entry('dropped.bin').getByTestId('entry-mode')).toHaveText('0644');

  // The bytes really are in the box: checked from inside it.
  const ev = await (await svc().api(`/v1/boxes/${id}/exec`, { method: 'POST', json: { command: 'sha256sum /tmp/dropped.bin' } })).text();
  const out = readExecStream(ev).stdout;
  const { createHash } = await import('node:crypto');
  expect(out.split(' ')[0]).toBe(createHash('sha256').update(bytes).digest('hex'));

  const download = page.waitForEvent('download');
  await browser.entry('dropped.bin').getByTestId('entry-download').click();
  expect(Buffer.compare(fs.readFileSync(await (await download).path()), bytes)).toBe(0);
  await screenshot(page, 'files');
});

test('cron: the schedule helper shows next runs in the chosen zone; create, run now, history, delete', async ({ page }) => {
  test.skip(!(await svc().has('post', '/v1/boxes/{box_id}/cron')), 'the cron area is not installed');
  const id = await ensureBox(svc());
  await login(page, svc());
  await new AppPage(page).open('cron');
  await page.getByTestId('cron-box').selectOption(id);
  await page.getByTestId('cron-schedule').fill('30 18 * * 1-5');
  await page.getByTestId('cron-tz').selectOption('Asia/Tokyo');
  const expected = nextRuns('30 18 * * 1-5', 'Asia/Tokyo', 5);
  if (!('runs' in expected)) throw new Error(expected.error);
  await expect(page.getByTestId('cron-next-run').first()).toContainText(inZone(expected.runs[0], 'Asia/Tokyo'));
  await expect(page.getByTestId('cron-next-run')).toHaveCount(5);
  await expect(page.getByTestId('cron-next-run').first()).toContainText('18:30');

  await page.getByTestId('cron-schedule').fill('61 * * * *');
  await expect(page.getByTestId('cron-preview')).toContainText(/61|range|invalid/i);
  await expect(page.getByTestId('cron-submit')).toBeDisabled();
  await page.getByTestId('cron-schedule').fill('30 18 * * 1-5');

  await page.getByTestId('cron-command').fill('echo cron-ran-$((40+2))');
  await page.getByTestId('cron-submit').click();
  const row = page.getByTestId('cron-row').filter({ hasText: 'cron-ran' });
  await expect(row).toBeVisible();
  const jobs = (await (await svc().api(`/v1/boxes/${id}/cron`)).json()) as { data: Array<{ id: string; timezone: string; next_run_at: string }> };
  expect(jobs.data).toHaveLength(1);
  expect(jobs.data[0].timezone).toBe('Asia/Tokyo');
  expect(jobs.data[0].next_run_at).toBe(expected.runs[0].toISOString());

  await row.getByRole('button', { name: 'Run now' }).click();
  await expect(page.getByText('cron-ran-42')).toBeVisible({ timeout: 120_000 });
  await screenshot(page, 'cron');

  await row.getByTestId('cron-delete').click();
  await row.getByTestId('cron-delete').click();
  await expect(page.getByTestId('cron-row')).toHaveCount(0);
});
