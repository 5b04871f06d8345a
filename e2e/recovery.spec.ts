import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { expect, login, serviceForFile, test } from './support/fixtures.js';

/**
 * Issue 28 in the UI, on a fake runtime (the real-VM path is failed-recovery.vm.test.ts):
 * a failed box offers its files (served from its stopped disk while it stays failed) and a
 * fork from its last checkpoint; and the sidebar warns when the data dir's disk runs low.
 * The low disk comes from the service's `diskLowBytes` start option, a test hook no
 * setting or variable reaches in production (disk-full.test.ts covers a real full tmpfs).
 */
let rt: FakeRuntime;
const svc = serviceForFile({}, { start: () => ({ runtime: (d: string) => (rt = new FakeRuntime(d)), diskLowBytes: Number.MAX_SAFE_INTEGER }) });

async function post(path: string, json: unknown = {}) {
  const res = await svc().api(path, { method: 'POST', json });
  expect(res.status, path).toBe(200);
  return res.json();
}

test('a failed box: its files from its stopped disk, a fork from its last checkpoint', async ({ page }) => {
  const app = (await post('/v1/apps/find', { name: 'recovery', mint_if_missing: true })).id;
  const box = await post('/v1/boxes', { app_id: app, name: 'doomed' });
  const put = await svc().api(`/v1/boxes/${box.box_id}/files?path=/root/kept.txt&create_parents=true`, { method: 'PUT', body: 'kept\n' });
  expect(put.status).toBe(200);
  await post(`/v1/boxes/${box.box_id}/checkpoint`);
  rt.crash(box.box_id, 'panic', 'guest kernel panic (e2e)');

  await login(page, svc());
  await page.evaluate((h) => (location.hash = h), `#/boxes/${box.box_id}`);
  await expect(page.getByTestId('box-status')).toHaveAttribute('data-status', 'failed');
  await page.getByTestId('failed-files').click();
  await expect(page.getByTestId('files-failed-note')).toContainText('stopped disk');
  await expect(page.getByTestId('box-files').getByText('kept.txt')).toBeVisible();
  expect((await (await svc().api(`/v1/boxes/${box.box_id}`)).json()).status).toBe('failed');

  await page.evaluate((h) => (location.hash = h), `#/boxes/${box.box_id}`);
  await page.getByTestId('failed-fork').click();
  await expect(page.getByTestId('lineage')).toContainText('Fork from its last checkpoint');
  await page.getByTestId('fork').click();
  // a fork is linked twice: in the tree, and beside the checkpoint it is on
  await expect(page.getByTestId('lineage').getByRole('link', { name: 'doomed-fork' }).first()).toBeVisible();
  const list = (await (await svc().api('/v1/boxes?limit=100')).json()).data as { name: string; status: string }[];
  expect(list.find((b) => b.name === 'doomed-fork')?.status).toBe('running');
});

test('the sidebar warns when the disk of the data dir runs low', async ({ page }) => {
  await login(page, svc());
  await expect(page.getByTestId('disk-low')).toContainText('Disk almost full');
  await expect(page.getByTestId('disk-low')).toHaveAttribute('title', /almost full/);
});
