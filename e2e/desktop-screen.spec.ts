import { desktopImageBuilt, provideDesktopImage } from '../src-server/areas/desktop/test-support/desktop-image.js';
import { readExecStream } from '../src-server/test-support/exec-stream.js';
import { AppPage } from './pages/app-page.js';
import { expect, login, screenshot, serviceForFile, test } from './support/fixtures.js';
import { terminateAll } from './support/service.js';

// A real desktop box (the `desktop` image from BOX_IMAGE_CACHE's desktop-store, built by
// `box desktop image` or the desktop VM test): the Screen tab's live view, view-only until
// "Take control", the pointer and typed keys reaching the box only then, "Give back", the screenshot button,
// and a recording played back. Skipped, by name, where the image is not built.
const svc = serviceForFile({}, { beforeClose: terminateAll });
test.setTimeout(1_800_000);
test.skip(!desktopImageBuilt(), 'the desktop image is not built (BOX_IMAGE_CACHE/desktop-store)');

test('screen tab: a desktop box watched live, taken control of, given back, screenshotted, recorded and played back', async ({ page }) => {
  await provideDesktopImage(svc().dataDir);
  await login(page, svc());
  await new AppPage(page).open('boxes');
  await page.getByTestId('box-new').click();
  const dialog = page.getByTestId('create-box-dialog');
  await dialog.getByTestId('box-app').fill('e2e-desk');
  await dialog.getByTestId('box-name').fill('e2e-screen');
  await dialog.getByTestId('box-image').selectOption('desktop');
  await dialog.getByTestId('size-s').click();
  await dialog.getByTestId('create-box-submit').click();
  await expect(page.getByTestId('box-title')).toHaveText('e2e-screen', { timeout: 1_200_000 });
  const boxId = new URL(page.url()).hash.match(/box_[0-9a-f-]{36}/)?.[0] ?? (await boxIdByName('e2e-screen'));
  const cursor = async () => ((await (await svc().api(`/v1/boxes/${boxId}/desktop`)).json()) as { cursor: { x: number; y: number } }).cursor;

  await page.getByTestId('tab-screen').click();
  const state = page.getByTestId('screen-state');
  await expect(state).toHaveText('Watching (view only)', { timeout: 300_000 });
  const canvas = page.getByTestId('screen-view').locator('canvas');
  await expect(canvas).toBeVisible();
  // the live view draws the desktop (Xfce's panel and background): not a black canvas
  await expect
    .poll(
      () =>
        canvas.evaluate((c: HTMLCanvasElement) => {
          const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
          let lit = 0;
          for (let i = 0; i < d.length; i += 4 * 97) if (d[i]! + d[i + 1]! + d[i + 2]! > 60) lit++;
          return lit;
        }),
      { timeout: 300_000 },
    )
    .toBeGreaterThan(100);

  // the pointer over a point of the view, as a fraction of its size (hover scrolls the point
  // into the page's view first: a move outside the viewport reaches no element)
  const pointAt = async (fx: number, fy: number) => {
    const b = (await canvas.boundingBox())!;
    await canvas.hover({ position: { x: b.width * fx, y: b.height * fy } });
  };
  const near = (c: { x: number; y: number }, x: number, y: number) => Math.abs(c.x - x) < 40 && Math.abs(c.y - y) < 40;

  // view only: the pointer over the view does not reach the box
  await page.mouse.move(0, 0);
  const before = await cursor();
  await pointAt(0.25, 0.25);
  await page.waitForTimeout(3000);
  expect(await cursor()).toEqual(before);

  // take control: the pointer moves the box's cursor (to a point it is not at yet)
  await page.getByTestId('screen-control').click();
  await expect(state).toHaveText('You have control');
  const [tx, ty] = near(before, 1024 * 0.3, 768 * 0.7) ? [0.7, 0.3] : [0.3, 0.7];
  await pointAt(tx, ty);
  // (a miss shows where the cursor is)
  const whereNow = async () => ((c) => (near(c, 1024 * tx, 768 * ty) ? 'there' : JSON.stringify(c)))(await cursor());
  await expect.poll(whereNow, { timeout: 120_000 }).toBe('there');

  // and typed keys reach it: a terminal opened on the screen takes a command typed into the view
  await svc().api(`/v1/boxes/${boxId}/desktop/launch`, { method: 'POST', json: { app: 'xterm' } });
  await expect
    .poll(
      async () => ((await (await svc().api(`/v1/boxes/${boxId}/desktop`)).json()) as { focused_window: { title: string } | null }).focused_window?.title ?? '',
      {
        timeout: 300_000,
      },
    )
    .toMatch(/xterm|user@/);
  await page.keyboard.type('echo typed-in-the-view > /tmp/typed');
  await page.keyboard.press('Enter');
  const typed = async () =>
    readExecStream(await (await svc().api(`/v1/boxes/${boxId}/exec`, { method: 'POST', json: { command: 'cat /tmp/typed 2>/dev/null' } })).text()).stdout;
  await expect.poll(typed, { timeout: 120_000 }).toContain('typed-in-the-view');
  await screenshot(page, 'box-screen-control');

  // give back: view only again, the pointer no longer reaches it
  await page.getByTestId('screen-control').click();
  await expect(state).toHaveText('Watching (view only)');
  const held = await cursor();
  await pointAt(0.75, 0.75);
  await page.waitForTimeout(3000);
  expect(await cursor()).toEqual(held);

  await page.getByTestId('screen-shot').click();
  await expect(page.getByTestId('screen-shot-link')).toBeVisible({ timeout: 120_000 });

  // a recording: Record, a change on the screen, Stop, Play
  await page.getByTestId('screen-record').click();
  await expect(page.getByTestId('screen-record-stop')).toBeVisible({ timeout: 60_000 });
  await page.waitForTimeout(5000);
  await svc().api(`/v1/boxes/${boxId}/desktop/launch`, { method: 'POST', json: { app: 'xterm' } });
  await expect
    .poll(async () => ((await (await svc().api(`/v1/boxes/${boxId}/desktop/recordings`)).json()) as { data: { images: number }[] }).data[0]?.images ?? 0, {
      timeout: 300_000,
    })
    .toBeGreaterThan(1);
  await page.getByTestId('screen-record-stop').click();
  await expect(page.getByTestId('screen-record')).toBeVisible({ timeout: 60_000 });
  await page.getByTestId('screen-recording-play').first().click();
  const frame = page.getByTestId('screen-player-frame');
  await expect(frame).toBeVisible();
  await expect.poll(() => frame.evaluate((img: HTMLImageElement) => img.naturalWidth), { timeout: 60_000 }).toBe(512);
  // playback moves through the frames to the last image
  await expect.poll(() => frame.getAttribute('data-image'), { timeout: 120_000 }).not.toBe('0');
  await screenshot(page, 'box-screen-recording');
});

async function boxIdByName(name: string): Promise<string> {
  const list = (await (await svc().api(`/v1/boxes?search=${name}`)).json()) as { data: { box_id: string; name: string }[] };
  return list.data.find((b) => b.name === name)!.box_id;
}
