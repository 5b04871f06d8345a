import { FakeRuntime } from '../src-server/test-support/fake-runtime.js';
import { docShots, expect, login, serviceForFile, test } from './support/fixtures.js';
import type { E2eService } from './support/service.js';

/**
 * Issue 29, what the first pass left: the playground's own webhook inbox (kept across
 * visits, the others listed), restore in place (the UI asks, and offers to checkpoint
 * first), Reboot and Sleep confirm and Sleep can be undone, and the box file browser's
 * operations through the API's routes. Each state the view shows is read from the API too.
 * Boxes run on the fake runtime (the UI is under test; box-ops.vm.test.ts runs restore on a VM).
 */
const svc = serviceForFile({}, { start: () => ({ runtime: (d: string) => new FakeRuntime(d) }) });

interface BoxRec {
  box_id: string;
  name: string;
  status: string;
  last_start: { operation: string } | null;
}
interface InboxRec {
  inbox_id: string;
  url: string;
  delivery_count: number;
}

async function createBox(s: E2eService, name: string): Promise<BoxRec> {
  const app = (await (await s.api('/v1/apps/find', { method: 'POST', json: { name: 'second-hour', mint_if_missing: true } })).json()) as { id: string };
  const res = await s.api('/v1/boxes', { method: 'POST', json: { app_id: app.id, name } });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as BoxRec;
}
const getBox = async (s: E2eService, id: string) => (await (await s.api(`/v1/boxes/${id}`)).json()) as BoxRec;
const putFile = (s: E2eService, boxId: string, p: string, body: string) =>
  s.api(`/v1/boxes/${boxId}/files?path=${encodeURIComponent(p)}&create_parents=true`, { method: 'PUT', body });

test('8. the playground keeps one webhook inbox per user across visits and windows; earlier inboxes and their deliveries stay listed', async ({
  page,
  browser,
}) => {
  await login(page, svc());
  await page.goto(`${svc().url}/#/playground`);
  const url = await page.getByTestId('inbox-url').textContent();
  const inboxUrl = url!.replace(/^POST /, '').trim();
  const inboxId = inboxUrl.split('/').pop()!;
  // The API lists it, and a delivery to it is kept.
  const listed = async () => ((await (await svc().api('/v1/inboxes')).json()) as { data: InboxRec[] }).data;
  expect((await listed()).map((i) => i.inbox_id)).toContain(inboxId);
  expect(
    (await fetch(inboxUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"resp_kept","status":"completed"}' })).status,
  ).toBe(200);
  await expect(page.getByTestId('inbox-delivery-id')).toContainText('resp_kept');

  // A new visit, and a new window (its own session storage): the same inbox, its delivery still there.
  await page.reload();
  await expect(page.getByTestId('inbox-url')).toHaveText(url!);
  await expect(page.getByTestId('inbox-delivery-id')).toContainText('resp_kept');
  const other = await browser.newContext();
  const second = await other.newPage();
  await login(second, svc());
  await second.goto(`${svc().url}/#/playground`);
  await expect(second.getByTestId('inbox-url')).toHaveText(url!);
  await other.close();
  expect((await listed()).filter((i) => i.inbox_id === inboxId)).toHaveLength(1);

  // An earlier (another) inbox of the organization is a choice away, with its deliveries.
  const earlier = (await (await svc().api('/v1/inbox', { method: 'POST', json: {} })).json()) as InboxRec;
  await fetch(earlier.url, { method: 'POST', body: '{"id":"resp_elsewhere","status":"completed"}' });
  await expect(page.getByTestId('inbox-select')).toBeVisible({ timeout: 10_000 });
  await expect(page.getByTestId('inbox-select').locator('option', { hasText: 'yours' })).toHaveAttribute('value', inboxId);
  await expect(page.getByTestId('inbox-select').locator(`option[value="${earlier.inbox_id}"]`)).toContainText('1 delivery');
  await page.getByTestId('inbox-select').selectOption(earlier.inbox_id);
  await expect(page.getByTestId('inbox-url')).toContainText(earlier.inbox_id);
  await expect(page.getByTestId('inbox-delivery-id')).toContainText('resp_elsewhere');
  const count = (await listed()).find((i) => i.inbox_id === earlier.inbox_id)!.delivery_count;
  await expect(page.getByTestId('inbox-delivery')).toHaveCount(count);
  await page.getByTestId('inbox-select').selectOption(inboxId);
  await expect(page.getByTestId('inbox-delivery-id')).toContainText('resp_kept');
  await docShots(page, 'playground-inbox', () => page.getByTestId('inbox').scrollIntoViewIfNeeded());
});

test('8. restore in place: the dialog says what is lost and offers to checkpoint first; the box goes back to the checkpoint', async ({ page }) => {
  const box = await createBox(svc(), 'restore-ui');
  expect((await putFile(svc(), box.box_id, '/root/before.txt', 'before')).status).toBe(200);
  const cp = (await (await svc().api(`/v1/boxes/${box.box_id}/checkpoint`, { method: 'POST', json: { name: 'base' } })).json()) as { checkpoint_id: string };
  expect((await putFile(svc(), box.box_id, '/root/after.txt', 'after')).status).toBe(200);
  await login(page, svc());
  await page.goto(`${svc().url}/#/boxes/${box.box_id}/checkpoints`);
  const node = page.locator(`[data-testid="checkpoint-node"][data-id="${cp.checkpoint_id}"]`);

  // Cancel changes nothing.
  await node.getByTestId('checkpoint-restore-in-place').click();
  await expect(page.getByTestId('restore-explain')).toContainText('What the box holds now is lost');
  await docShots(page, 'box-restore', () => expect(page.getByTestId('restore-dialog')).toBeVisible());
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('restore-dialog')).toHaveCount(0);
  expect((await svc().api(`/v1/boxes/${box.box_id}/files?path=/root/after.txt`)).status).toBe(200);

  // Checkpoint first, then restore: the state before is kept as a checkpoint, the box is back at "base".
  await node.getByTestId('checkpoint-restore-in-place').click();
  await page.getByTestId('restore-checkpoint-first').click();
  await expect(page.getByTestId('toast').filter({ hasText: 'restored to base' })).toBeVisible();
  const after = await getBox(svc(), box.box_id);
  expect(after).toMatchObject({ status: 'running', last_start: { operation: 'restore' } });
  expect((await svc().api(`/v1/boxes/${box.box_id}/files?path=/root/after.txt`)).status).toBe(404);
  expect(await (await svc().api(`/v1/boxes/${box.box_id}/files?path=/root/before.txt`)).text()).toBe('before');
  const cps = ((await (await svc().api(`/v1/box-checkpoints?box_id=${box.box_id}`)).json()) as { data: { name: string | null; checkpoint_id: string }[] }).data;
  const saved = cps.find((c) => c.name?.startsWith('before-restore-'));
  expect(saved, JSON.stringify(cps)).toBeTruthy();
  await expect(page.locator(`[data-testid="checkpoint-node"][data-id="${saved!.checkpoint_id}"]`)).toBeVisible();

  // That saved state can be restored too (straight, losing the current one): after.txt is back.
  await page.locator(`[data-testid="checkpoint-node"][data-id="${saved!.checkpoint_id}"]`).getByTestId('checkpoint-restore-in-place').click();
  await page.getByTestId('restore-confirm').click();
  await expect(page.getByTestId('restore-dialog')).toHaveCount(0);
  await expect.poll(async () => (await svc().api(`/v1/boxes/${box.box_id}/files?path=/root/after.txt`)).status).toBe(200);
});

test('3. Reboot and Sleep each ask for a second click; the Sleep toast undoes it (wakes the box)', async ({ page }) => {
  const box = await createBox(svc(), 'confirm-box');
  await login(page, svc());
  await page.goto(`${svc().url}/#/boxes/${box.box_id}`);
  await page.getByTestId('action-reboot').click();
  await expect(page.getByTestId('action-reboot')).toContainText('Reboot?');
  expect((await getBox(svc(), box.box_id)).last_start?.operation).toBe('create');
  await page.getByTestId('action-reboot').click();
  await expect.poll(async () => (await getBox(svc(), box.box_id)).last_start?.operation).toBe('reboot');

  await page.getByTestId('action-sleep').click();
  await expect(page.getByTestId('action-sleep')).toContainText('Sleep?');
  expect((await getBox(svc(), box.box_id)).status).toBe('running');
  await page.getByTestId('action-sleep').click();
  await expect.poll(async () => (await getBox(svc(), box.box_id)).status).toBe('sleeping');
  const toast = page.getByTestId('toast').filter({ hasText: 'is asleep' });
  await expect(toast.getByTestId('toast-action')).toHaveText('Undo');
  await docShots(page, 'box-sleep-undo', () => expect(toast).toBeVisible());
  await toast.getByTestId('toast-action').click();
  await expect.poll(async () => (await getBox(svc(), box.box_id)).status).toBe('running');
  await expect(page.getByTestId('toast').filter({ hasText: 'awake again' })).toBeVisible();
});

test('4. the box file browser creates, renames and deletes through the API routes, and shows their errors', async ({ page }) => {
  const box = await createBox(svc(), 'ops-box');
  expect((await putFile(svc(), box.box_id, '/root/a.txt', 'a')).status).toBe(200);
  const routes: string[] = [];
  page.on('request', (r) => {
    const m = /\/v1\/boxes\/[^/]+\/(directories|paths\/move|paths|exec)\b/.exec(new URL(r.url()).pathname);
    if (m && r.method() !== 'GET') routes.push(`${r.method()} ${m[1]}`);
  });
  await login(page, svc());
  await page.goto(`${svc().url}/#/files/${box.box_id}`);
  const entry = (name: string) => page.locator(`[data-testid="entry"][data-name="${name}"]`);
  await expect(entry('a.txt')).toBeVisible();
  routes.length = 0; // the home lookup before is an exec; the operations are not

  await page.getByTestId('new-folder').click();
  await page.getByTestId('new-folder-name').fill('made');
  await page.getByTestId('new-folder-create').click();
  await expect(entry('made')).toHaveAttribute('data-type', 'directory');
  // The same name again: the API's 409, named, in the error toast.
  await page.getByTestId('new-folder').click();
  await page.getByTestId('new-folder-name').fill('made');
  await page.getByTestId('new-folder-create').click();
  await expect(page.locator('[data-testid="toast"][data-kind="error"]')).toContainText('/root/made already exists');

  await entry('a.txt').getByTestId('entry-rename').click();
  await page.getByTestId('rename-input').fill('b.txt');
  await page.getByTestId('rename-save').click();
  await expect(entry('b.txt')).toBeVisible();
  await entry('made').getByTestId('entry-delete').click();
  await entry('made').getByTestId('entry-delete').click();
  await expect(entry('made')).toHaveCount(0);

  const dir = (await (await svc().api(`/v1/boxes/${box.box_id}/directories?path=/root`)).json()) as { entries: { name: string }[] };
  expect(dir.entries.map((e) => e.name)).toEqual(['b.txt']);
  expect(routes).toEqual(['POST directories', 'POST directories', 'POST paths/move', 'DELETE paths']);
});
