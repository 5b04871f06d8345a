import type { BoxAccess } from '../boxes/ports.js';
import { DesktopAction, DesktopBoxParams, LaunchBody, OpenBody, ScreenshotQuery } from '../contract/desktop.js';
import type { RouteRegistrar } from '../http/route.js';
import type { DesktopService } from './desktop-service.js';
import { desktopRelays } from './relay-routes.js';

/** Computer use on a desktop box (contract: contract/desktop.ts). Every call is an exec of the box ('exec' access). */
export function desktopRoutes(desktop: DesktopService, access: BoxAccess) {
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
    desktopRelays(r, desktop, access);
  };
}
