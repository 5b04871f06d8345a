import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { AppPage } from './pages/app-page.js';
import { VolumesPage } from './pages/volumes-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';

const svc = serviceForFile();

test.beforeEach(async () => {
  test.skip(!(await svc().has('put', '/v1/box-volumes/{volume_id}/files')), 'the volumes area is not installed in this service');
});

test('volumes: create, drop a file, watch progress, download it back byte for byte', async ({ page }) => {
  await login(page, svc());
  await new AppPage(page).open('volumes');
  const vols = new VolumesPage(page);
  await vols.create('e2e-data');

  const bytes = randomBytes(3 * 1024 * 1024 + 17);
  const unthrottle = await vols.throttleUploads(1024 * 1024);
  await vols.watchProgress('payload.bin');
  await vols.drop(await vols.dataTransfer([{ name: 'payload.bin', bytes }]));
  await expect(vols.transfer('payload.bin')).toHaveAttribute('data-status', 'uploading');
  await screenshot(page, 'volumes-uploading');
  await expect(vols.transfer('payload.bin')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await unthrottle();
  const seen = await vols.progressSeen('payload.bin');
  expect(
    seen.some((p) => p > 0 && p < 100),
    `intermediate progress seen: ${seen.join(',')}`,
  ).toBe(true);
  expect(seen[seen.length - 1]).toBe(100);

  await expect(vols.entry('payload.bin')).toBeVisible();
  await expect(vols.entry('payload.bin').getByTestId('entry-size')).toHaveText('3.0 MiB');
  await expect(vols.entry('payload.bin').getByTestId('entry-mode')).toHaveText(/^0[0-7]{3}$/);

  const download = page.waitForEvent('download');
  await vols.entry('payload.bin').getByTestId('entry-download').click();
  const file = await (await download).path();
  expect(Buffer.compare(fs.readFileSync(file), bytes)).toBe(0);
  await screenshot(page, 'volumes');
});

test('volumes: cancel an upload in flight; the file does not appear', async ({ page }) => {
  await login(page, svc());
  await new AppPage(page).open('volumes');
  const vols = new VolumesPage(page);
  await vols.create('e2e-cancel');
  const unthrottle = await vols.throttleUploads(256 * 1024);
  await vols.drop(
    await vols.dataTransfer([
      { name: 'big.bin', bytes: randomBytes(4 * 1024 * 1024) },
      { name: 'small.txt', bytes: Buffer.from('hello\n') },
    ]),
  );
  await expect(vols.transfer('big.bin')).toHaveAttribute('data-status', 'uploading');
  await vols.transfer('big.bin').getByTestId('transfer-cancel').click();
  await expect(vols.transfer('big.bin')).toHaveAttribute('data-status', 'cancelled');
  await expect(vols.transfer('small.txt')).toHaveAttribute('data-status', 'done');
  await unthrottle();
  await expect(vols.entry('small.txt')).toBeVisible();
  await expect(vols.entry('big.bin')).toHaveCount(0);
  const listing = (await (await svc().api(`/v1/box-volumes`)).json()) as { data: Array<{ volume_id: string; name: string }> };
  const vol = listing.data.find((v) => v.name === 'e2e-cancel')!;
  const dir = (await (await svc().api(`/v1/box-volumes/${vol.volume_id}/directories`)).json()) as { entries: Array<{ name: string }> };
  expect(dir.entries.map((e) => e.name)).toEqual(['small.txt']);
});
