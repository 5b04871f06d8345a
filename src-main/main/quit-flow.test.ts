import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeRuntime } from '../../src-server/test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../src-server/test-support/harness.js';
import { beforeQuit, choiceOf, quitDialog } from './quit-flow.js';

// The desktop quit flow without a display: the dialog is a function the test answers.
let svc: TestService;
let appId: string;
beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'desk', mint_if_missing: true } })).json()).id;
});
afterAll(() => svc.close());
const createBox = async (name: string) => (await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name } })).json()) as { box_id: string };
const statusOf = async (id: string) => (await (await svc.api(`/v1/boxes/${id}`)).json()).status as string;

it('maps the dialog answer: buttons in order, remember only for a real choice', () => {
  expect(quitDialog(2)).toMatchObject({
    buttons: ['Put them to sleep and quit', 'Leave them running and quit', 'Cancel'],
    cancelId: 2,
    message: '2 boxes are running. What should happen to them?',
  });
  expect(quitDialog(1).message).toBe('1 box is running. What should happen to it?');
  expect(choiceOf({ response: 0, checkboxChecked: true })).toEqual({ choice: 'stop_boxes', remember: true });
  expect(choiceOf({ response: 1, checkboxChecked: false })).toEqual({ choice: 'leave_running', remember: false });
  expect(choiceOf({ response: 2, checkboxChecked: true })).toEqual({ choice: 'cancel', remember: false });
});

it('no running box: quits without asking', async () => {
  let asked = 0;
  expect(await beforeQuit(svc.ctx.services.quit, async () => (asked++, { response: 2, checkboxChecked: false }))).toBe(true);
  expect(asked).toBe(0);
});

it('asks when boxes run: cancel keeps them and the app; sleep + remember stores the setting', async () => {
  const box = await createBox('desk-a');
  const quit = svc.ctx.services.quit;
  expect(await beforeQuit(quit, async () => ({ response: 2, checkboxChecked: true }))).toBe(false);
  expect(await statusOf(box.box_id)).toBe('running');
  expect((await quit.settings.get()).on_quit).toBe('ask');
  expect(await beforeQuit(quit, async (o) => (expect(o.message).toContain('1 box is running'), { response: 0, checkboxChecked: true }))).toBe(true);
  expect(await statusOf(box.box_id)).toBe('sleeping');
  expect((await quit.settings.get()).on_quit).toBe('stop_boxes');
});

it('a remembered leave_running quits without asking and leaves the box running', async () => {
  const box = await createBox('desk-b');
  await svc.ctx.services.quit.settings.set({ on_quit: 'leave_running' });
  let asked = 0;
  expect(await beforeQuit(svc.ctx.services.quit, async () => (asked++, { response: 0, checkboxChecked: false }))).toBe(true);
  expect(asked).toBe(0);
  expect(await statusOf(box.box_id)).toBe('running');
});
