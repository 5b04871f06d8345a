/**
 * The desktop routes' requests refused before any guest work (the spec's envelope naming
 * the field), and the guest commands' text: values travel as arguments, never in the script,
 * and xdotool/wmctrl output reads back. (The screen itself: desktop.vm.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRuntime } from '../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../test-support/harness.js';
import { actionCommand, parseInfo, parseWindows, screenshotCommand } from './xdo.js';

let svc: TestService;
let boxId: string;

beforeAll(async () => {
  svc = await startTestService({ runtime: (d) => new FakeRuntime(d) });
  const appId = (await (await svc.api('/v1/apps/find', { method: 'POST', json: { name: 'd', mint_if_missing: true } })).json()).id;
  boxId = (await (await svc.api('/v1/boxes', { method: 'POST', json: { app_id: appId, name: 'deskbox' } })).json()).box_id;
});
afterAll(() => svc.close());

const refused = async (path: string, json?: unknown, method = 'POST') => {
  const res = await svc.api(path, json === undefined ? { method } : { method, json });
  return { status: res.status, error: ((await res.json()) as { error: { param: string | null } }).error };
};

describe('desktop requests', () => {
  it('refuses bad actions, launches, opens and scales naming the field', async () => {
    const act = `/v1/boxes/${boxId}/desktop/actions`;
    expect(await refused(act, { type: 'teleport' })).toMatchObject({ status: 400, error: { param: 'type' } });
    expect(await refused(act, { type: 'click', x: -1, y: 3 })).toMatchObject({ status: 400, error: { param: 'x' } });
    expect(await refused(act, { type: 'click', x: 5 })).toMatchObject({ status: 400, error: { param: 'y' } });
    expect(await refused(act, { type: 'key', keys: 'ctrl+l; reboot' })).toMatchObject({ status: 400, error: { param: 'keys' } });
    expect(await refused(act, { type: 'type', text: '' })).toMatchObject({ status: 400, error: { param: 'text' } });
    expect(await refused(act, { type: 'scroll', direction: 'sideways' })).toMatchObject({ status: 400, error: { param: 'direction' } });
    expect(await refused(`/v1/boxes/${boxId}/desktop/launch`, { app: 'x; rm -rf /' })).toMatchObject({ status: 400, error: { param: 'app' } });
    expect(await refused(`/v1/boxes/${boxId}/desktop/open`, { target: 'javascript:alert(1)' })).toMatchObject({ status: 400, error: { param: 'target' } });
    expect(await refused(`/v1/boxes/${boxId}/desktop/screenshot?scale=2`, undefined, 'GET')).toMatchObject({ status: 400, error: { param: 'scale' } });
    const missing = 'box_00000000-0000-4000-8000-000000000000';
    expect((await refused(`/v1/boxes/${missing}/desktop/actions`, { type: 'move', x: 1, y: 1 })).status).toBe(404);
  });

  it('lists the desktop routes in the OpenAPI document', async () => {
    const doc = (await (await svc.api('/v1/openapi.json')).json()) as { paths: Record<string, unknown> };
    for (const p of [
      '/v1/boxes/{box_id}/desktop',
      '/v1/boxes/{box_id}/desktop/screenshot',
      '/v1/boxes/{box_id}/desktop/actions',
      '/v1/boxes/{box_id}/desktop/windows',
    ])
      expect(doc.paths[p], p).toBeDefined();
  });
});

describe('desktop guest commands', () => {
  it('passes typed text and keys as arguments, not script text', () => {
    const t = actionCommand({ type: 'type', text: '"; reboot; echo "$(id)' });
    expect(t.script).not.toContain('reboot');
    expect(t.args).toEqual(['"; reboot; echo "$(id)']);
    expect(actionCommand({ type: 'key', keys: 'ctrl+a BackSpace' }).args).toEqual(['ctrl+a', 'BackSpace']);
    expect(actionCommand({ type: 'click', x: 3, y: 4, button: 'right', double: true }).script).toMatch(
      /^xdotool mousemove --sync 3 4 click --repeat 2 --delay 80 3 /,
    );
    expect(screenshotCommand(50).script).toContain('--thumb 50');
  });

  it('reads xdotool and wmctrl output', () => {
    expect(parseInfo('1024 768\nX=10\nY=20\nSCREEN=0\nWINDOW=5\nWIN=4194307\nPID=321\nTITLE=typed: a b\n')).toEqual({
      width: 1024,
      height: 768,
      cursor: { x: 10, y: 20 },
      focused: { id: '4194307', title: 'typed: a b', pid: 321, focused: true },
    });
    expect(parseInfo('800 600\nX=0\nY=0\n').focused).toBeNull();
    expect(parseWindows('ACTIVE=4194307\n0x00400003  0 321    box Page - Chromium\n0x00a00004 -1 0 box xfce4-panel\n')).toEqual([
      { id: '4194307', title: 'Page - Chromium', pid: 321, focused: true },
      { id: '10485764', title: 'xfce4-panel', pid: null, focused: false },
    ]);
  });
});
