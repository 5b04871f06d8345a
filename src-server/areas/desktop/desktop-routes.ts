import type { BoxAccess } from '../boxes/ports.js';
import {
  DesktopAction,
  DesktopBoxParams,
  LaunchBody,
  OpenBody,
  RecordingFrameParams,
  RecordingParams,
  ScreenshotQuery,
  StartRecordingBody,
} from '@box/contract/desktop';
import type { RouteRegistrar } from '../../platform/http/route.js';
import type { DesktopService } from './desktop-service.js';
import type { DesktopRecordings } from './recordings.js';
import { desktopRelays } from './relay-routes.js';

/** Computer use on a desktop box (contract: contract/desktop.ts). Every call is an exec of the box ('exec' access). */
export function desktopRoutes(desktop: DesktopService, recordings: DesktopRecordings, access: BoxAccess) {
  return (r: RouteRegistrar) => {
    const base = { area: 'box' as const, tag: 'desktop', params: DesktopBoxParams };
    r.add({
      ...base,
      method: 'get',
      path: '/v1/boxes/:box_id/desktop',
      summary: "The box's screen: size, cursor, focused window, and the live view's and browser's WebSocket paths (starts the desktop if needed)",
      handler: async ({ auth, req, params }) => desktop.info(await access.boxFor(req, auth, params.box_id, 'exec')),
    });
    r.add({
      ...base,
      method: 'get',
      path: '/v1/boxes/:box_id/desktop/screenshot',
      query: ScreenshotQuery,
      summary: 'A PNG of the screen, with the pointer; ?scale=0.1..1 shrinks it',
      handler: async ({ auth, req, res, params, query }) => {
        const png = await desktop.screenshot(await access.boxFor(req, auth, params.box_id, 'exec'), query.scale);
        res.status(200).set({ 'Content-Type': 'image/png', 'Content-Length': String(png.length), 'Cache-Control': 'no-store' });
        res.end(png);
      },
    });
    r.add({
      ...base,
      method: 'post',
      path: '/v1/boxes/:box_id/desktop/actions',
      body: DesktopAction,
      idempotent: false,
      summary: 'One mouse or keyboard action (move, click, drag, scroll, type, key); answers the cursor position after it',
      handler: async ({ auth, req, params, body }) => desktop.act(await access.boxFor(req, auth, params.box_id, 'exec'), body),
    });
    r.add({
      ...base,
      method: 'get',
      path: '/v1/boxes/:box_id/desktop/windows',
      summary: "The screen's windows (id, title, pid), the focused one marked",
      handler: async ({ auth, req, params }) => ({ data: await desktop.windows(await access.boxFor(req, auth, params.box_id, 'exec')) }),
    });
    r.add({
      ...base,
      method: 'post',
      path: '/v1/boxes/:box_id/desktop/launch',
      body: LaunchBody,
      idempotent: false,
      summary: 'Start an application (a desktop entry such as "xterm" or "box-browser", or a program) on the screen',
      handler: async ({ auth, req, params, body }) => desktop.launch(await access.boxFor(req, auth, params.box_id, 'exec'), body.app, body.args),
    });
    r.add({
      ...base,
      method: 'post',
      path: '/v1/boxes/:box_id/desktop/open',
      body: OpenBody,
      idempotent: false,
      summary: "Open a URL or a file with the desktop's default application (xdg-open)",
      handler: async ({ auth, req, params, body }) => desktop.open(await access.boxFor(req, auth, params.box_id, 'exec'), body.target),
    });
    // recordings (recordings.ts): watching needs the box's 'exec' access, as the screenshots do
    const rec = { area: 'box' as const, tag: 'desktop', params: RecordingParams };
    r.add({
      ...base,
      method: 'post',
      path: '/v1/boxes/:box_id/desktop/recordings',
      body: StartRecordingBody,
      idempotent: false,
      summary: 'Start recording the screen: a frame every interval_ms (kept when it changed), until stopped or max_seconds',
      handler: async ({ auth, req, params, body }) => recordings.start(await access.boxFor(req, auth, params.box_id, 'exec'), body),
    });
    r.add({
      ...base,
      method: 'get',
      path: '/v1/boxes/:box_id/desktop/recordings',
      summary: "The box's screen recordings, newest first",
      handler: async ({ auth, req, params }) => ({ data: recordings.list(await access.boxFor(req, auth, params.box_id, 'exec')) }),
    });
    r.add({
      ...rec,
      method: 'get',
      path: '/v1/boxes/:box_id/desktop/recordings/:recording_id',
      summary: 'A recording: its frames (time, image) for playback',
      handler: async ({ auth, req, params }) => recordings.get(await access.boxFor(req, auth, params.box_id, 'exec'), params.recording_id),
    });
    r.add({
      ...rec,
      method: 'post',
      path: '/v1/boxes/:box_id/desktop/recordings/:recording_id/stop',
      summary: 'Stop a recording (a stopped one answers as it is)',
      handler: async ({ auth, req, params }) => recordings.stop(await access.boxFor(req, auth, params.box_id, 'exec'), params.recording_id),
    });
    r.add({
      ...rec,
      method: 'delete',
      path: '/v1/boxes/:box_id/desktop/recordings/:recording_id',
      summary: 'Delete a recording and its images (stops it first)',
      handler: async ({ auth, req, params }) => recordings.remove(await access.boxFor(req, auth, params.box_id, 'exec'), params.recording_id),
    });
    r.add({
      area: 'box',
      tag: 'desktop',
      params: RecordingFrameParams,
      method: 'get',
      path: '/v1/boxes/:box_id/desktop/recordings/:recording_id/frames/:image',
      summary: "One image of a recording (PNG; a frame's `image`)",
      handler: async ({ auth, req, res, params }) => {
        const png = recordings.frame(await access.boxFor(req, auth, params.box_id, 'exec'), params.recording_id, params.image);
        res.status(200).set({ 'Content-Type': 'image/png', 'Content-Length': String(png.length), 'Cache-Control': 'private, max-age=86400, immutable' });
        res.end(png);
      },
    });
    desktopRelays(r, desktop, access);
  };
}
