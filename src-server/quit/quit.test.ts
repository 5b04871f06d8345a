import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../test-support/fake-runtime.js';
import { errorOf, startTestService, type TestService } from '../test-support/harness.js';
import { describeOnQuit, planQuit } from './quit-plan.js';

describe('planQuit: what quitting does with running boxes', () => {
  it('asks only on the desktop, and only when boxes run', () => {
    expect(planQuit('ask', 2, 'desktop')).toMatchObject({ action: 'ask', running: 2 });
    expect(planQuit('ask', 0, 'desktop')).toMatchObject({ action: 'nothing' });
    expect(planQuit('leave_running', 0, 'headless').action).toBe('nothing');
  });

  it('a headless service cannot ask: it puts the boxes to sleep and says why', () => {
    const p = planQuit('ask', 1, 'headless');
    expect(p.action).toBe('stop_boxes');
    expect(p.message).toBe(
      'Quitting puts the 1 running box to sleep first (on_quit is "ask", and a headless service cannot ask): memory is saved to disk and each wakes on its next exec, file call or request.',
    );
  });

  it('follows an explicit setting in both places', () => {
    for (const where of ['desktop', 'headless'] as const) {
      expect(planQuit('stop_boxes', 3, where)).toMatchObject({ action: 'stop_boxes', message: expect.stringContaining('3 running boxes to sleep') });
      expect(planQuit('leave_running', 3, where)).toMatchObject({
        action: 'leave_running',
        message: expect.stringContaining('leaves the 3 running boxes running'),
      });
    }
  });

  it('describes the rule for the banner and the tray', () => {
    expect(describeOnQuit('ask', 'desktop')).toBe('you are asked what to do with running boxes');
    expect(describeOnQuit('ask', 'headless')).toMatch(/^running boxes are put to sleep/);
    expect(describeOnQuit('leave_running', 'headless')).toMatch(/keep running/);
  });
});

describe('service settings and quitting, through the API', () => {
  let svc: TestService;
  let appId: string;
  beforeAll(async () => {
    svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
    appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'quit', mint_if_missing: true } })).json()).id;
  });
  afterAll(() => svc.close());
  const patch = (json: unknown) => svc.api('/v1/service/settings', { method: 'PATCH', json });

  it('on_quit defaults to ask, is changed by PATCH and survives a restart of the settings read', async () => {
    expect(await (await svc.api('/v1/service/settings')).json()).toEqual({ on_quit: 'ask' });
    expect(await (await patch({ on_quit: 'leave_running' })).json()).toEqual({ on_quit: 'leave_running' });
    expect(await (await svc.api('/v1/service/settings')).json()).toEqual({ on_quit: 'leave_running' });
    expect((await svc.ctx.services.quit.settings.get()).on_quit).toBe('leave_running');
  });

  it('refuses a bad value or an unknown setting by name, and changes nothing', async () => {
    expect(await errorOf(await patch({ on_quit: 'explode' }))).toMatchObject({ type: 'invalid_request_error', param: 'on_quit' });
    expect(await errorOf(await patch({ colour: 'red' }))).toMatchObject({ type: 'invalid_request_error' });
    expect(await (await svc.api('/v1/service/settings')).json()).toEqual({ on_quit: 'leave_running' });
  });

  it('the quit plan counts running boxes; stopBoxes puts them to sleep', async () => {
    await patch({ on_quit: 'ask' });
    expect(await (await svc.api('/v1/service/quit-plan')).json()).toMatchObject({ action: 'nothing', running: 0 });
    const a = await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'qa' } })).json();
    const b = await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'qb' } })).json();
    expect(await (await svc.api('/v1/service/quit-plan')).json()).toMatchObject({ action: 'ask', running: 2 });
    expect(await (await svc.api('/v1/service/quit-plan?where=headless')).json()).toMatchObject({ action: 'stop_boxes', running: 2 });
    expect(await errorOf(await svc.api('/v1/service/quit-plan?where=mars'))).toMatchObject({ param: 'where' });
    const lines: string[] = [];
    expect(await svc.ctx.services.quit.stopBoxes((l) => lines.push(l))).toEqual({ slept: 2, failed: 0 });
    expect(lines.sort()).toEqual(['  qa: asleep', '  qb: asleep']);
    for (const box of [a, b]) expect((await (await svc.api(`/v1/boxes/${box.box_id}`)).json()).status).toBe('sleeping');
    // Asleep, not lost: the next exec wakes the box.
    const exec = await svc.api(`/v1/boxes/${a.box_id}/exec`, { method: 'POST', json: { command: 'true' } });
    expect(exec.status).toBe(200);
    await exec.text();
    expect((await (await svc.api(`/v1/boxes/${a.box_id}`)).json()).status).toBe('running');
  });
});
