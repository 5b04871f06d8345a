/**
 * The desktop routes' requests refused before any guest work (the spec's envelope naming
 * the field), and the guest commands' text: values travel as arguments, never in the script,
 * and xdotool/wmctrl output reads back. (The screen itself: desktop.vm.test.ts.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BoxRecord } from '../boxes/ports.js';
import { FakeRuntime } from '../../test-support/fake-runtime.js';
import { startTestService, type TestService } from '../../test-support/harness.js';
import { DesktopRecordings } from './recordings.js';
import { actionCommand, parseInfo, parseWindows } from './xdo.js';

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
    const recs = `/v1/boxes/${boxId}/desktop/recordings`;
    expect(await refused(recs, { interval_ms: 50 })).toMatchObject({ status: 400, error: { param: 'interval_ms' } });
    expect(await refused(recs, { scale: 2 })).toMatchObject({ status: 400, error: { param: 'scale' } });
    expect(await refused(recs, { fps: 2 })).toMatchObject({ status: 400 });
    expect(await refused(`${recs}/nope`, undefined, 'GET')).toMatchObject({ status: 400, error: { param: 'recording_id' } });
    expect(await refused(`${recs}/rec_${'0'.repeat(32)}`, undefined, 'GET')).toMatchObject({ status: 404, error: { param: 'recording_id' } });
    expect(await refused(`${recs}/rec_${'0'.repeat(32)}/frames/x`, undefined, 'GET')).toMatchObject({ status: 400, error: { param: 'image' } });
  });

  it('lists the desktop routes in the OpenAPI document', async () => {
    const doc = (await (await svc.api('/v1/openapi.json')).json()) as { paths: Record<string, unknown> };
    for (const p of [
      '/v1/boxes/{box_id}/desktop',
      '/v1/boxes/{box_id}/desktop/screenshot',
      '/v1/boxes/{box_id}/desktop/actions',
      '/v1/boxes/{box_id}/desktop/windows',
      '/v1/boxes/{box_id}/desktop/recordings',
      '/v1/boxes/{box_id}/desktop/recordings/{recording_id}/frames/{image}',
    ])
      expect(doc.paths[p], p).toBeDefined();
  });
});

describe('desktop recordings', () => {
  it('keeps a frame per tick and an image per change, stops when asked, plays back from disk', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'box-rec-'));
    let screen = 'a';
    const shots: number[] = [];
    const rec = new DesktopRecordings(root, async (_box, scale) => (shots.push(scale), Buffer.from(`PNG ${screen}`)));
    const box = { box_id: 'box_1', name: 'one' } as BoxRecord;
    const started = rec.start(box, { interval_ms: 200, scale: 0.25 });
    expect(started).toMatchObject({ status: 'recording', interval_ms: 200, scale: 0.25, stop_reason: null });
    expect(() => rec.start(box, {})).toThrow(/being recorded already/);
    const until = async (fn: () => boolean) => {
      for (let i = 0; i < 200 && !fn(); i++) await new Promise((r) => setTimeout(r, 20));
    };
    await until(() => rec.get(box, started.recording_id).frames.length >= 3);
    screen = 'b';
    await until(() => rec.get(box, started.recording_id).images >= 2);
    const stopped = await rec.stop(box, started.recording_id);
    expect(stopped).toMatchObject({ status: 'stopped', stop_reason: 'stopped', images: 2 });
    expect(stopped.frames.length).toBeGreaterThanOrEqual(4);
    expect(stopped.frames[0]).toEqual({ at_ms: expect.any(Number), image: 0 });
    expect(stopped.frames.at(-1)!.image).toBe(1);
    for (let i = 1; i < stopped.frames.length; i++) expect(stopped.frames[i]!.at_ms).toBeGreaterThanOrEqual(stopped.frames[i - 1]!.at_ms + 150);
    expect(shots.every((s) => s === 0.25)).toBe(true);
    // from disk, in a new instance (a service restart)
    const again = new DesktopRecordings(root, async () => Buffer.alloc(0));
    expect(again.list(box).map((r) => r.recording_id)).toEqual([started.recording_id]);
    expect(again.frame(box, started.recording_id, 1).toString()).toBe('PNG b');
    expect(() => again.frame(box, started.recording_id, 2)).toThrow(/no image 2/);
    // a box that goes ends its recording; a failing screenshot ends it with the reason
    const other = { box_id: 'box_2', name: 'two' } as BoxRecord;
    const r2 = rec.start(other, { interval_ms: 200 });
    rec.boxGone('box_2');
    expect(rec.get(other, r2.recording_id)).toMatchObject({ status: 'stopped', stop_reason: 'box_gone' });
    const failing = new DesktopRecordings(root, () => Promise.reject(new Error('no desktop')));
    const r3 = failing.start(other, {});
    await until(() => failing.get(other, r3.recording_id).status === 'stopped');
    expect(failing.get(other, r3.recording_id).stop_reason).toBe('error: no desktop');
    await again.remove(box, started.recording_id);
    expect(again.list(box)).toEqual([]);
  });
});

describe('desktop guest commands', () => {
  it('passes typed text and keys as arguments, not script text', () => {
    const t = actionCommand({ type: 'type', text: '"; reboot; echo "$(id)' });
    expect(t.script).not.toContain('reboot');
    expect(t.args).toEqual(['"; reboot; echo "$(id)']);
    expect(actionCommand({ type: 'key', keys: 'ctrl+a BackSpace' }).args).toEqual(['ctrl+a', 'BackSpace']);
    // one xdotool process: the move (no --sync: it waits ~16 s when the pointer is already
    // there), the click and the cursor
    expect(actionCommand({ type: 'click', x: 3, y: 4, button: 'right', double: true }).script).toBe(
      'exec xdotool mousemove 3 4 click --repeat 2 --delay 80 3 getmouselocation --shell',
    );
    for (const a of [
      { type: 'move', x: 1, y: 2 },
      { type: 'drag', from: { x: 1, y: 2 }, to: { x: 3, y: 4 } },
      { type: 'scroll', x: 1, y: 2 },
    ] as const)
      expect(actionCommand(a).script).not.toContain('--sync');
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
