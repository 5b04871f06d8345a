import path from 'node:path';
import type { AppBase } from '../../platform/app-context.js';
import type { Area } from '../../platform/area.js';
import type { BoxService } from '../boxes/module.js';
import type { BoxAccess } from '../boxes/ports.js';
import { desktopRoutes } from './desktop-routes.js';
import { DesktopService } from './desktop-service.js';
import { desktopWarmup } from './desktop-warmup.js';
import { DesktopRecordings } from './recordings.js';
import type { DesktopBoxes } from './ports.js';

export type { DesktopService };

/** Desktops for computer-use agents (issue 37): the screen of a `desktop` box, driven by API, MCP, SDKs and E2B Desktop. */
export function desktopArea(app: AppBase, deps: { boxes: BoxService; access: BoxAccess }) {
  const b = deps.boxes;
  const port: DesktopBoxes = {
    ensureRunning: (box) => (box.status === 'running' ? Promise.resolve(box) : b.ensureRunning(box, 'exec')),
    touch: (id) => b.touch(id),
    agent: (id) => b.agent(id),
    onGone: (fn) => b.hooks.onGone(fn),
    cpuSeconds: async (id) => (await b.meters.sample?.(id))?.cpuSeconds,
  };
  // templates of an image with a desktop hold it running (desktop-warmup.ts; others skip it)
  b.addTemplateWarmup(desktopWarmup);
  const desktop = new DesktopService(port);
  const recordings = new DesktopRecordings(path.join(app.config.dataDir, 'desktop-recordings'), (box, scale) => desktop.screenshot(box, scale));
  b.hooks.onGone((id) => recordings.boxGone(id));
  const area: Area = { name: 'desktop', routes: desktopRoutes(desktop, recordings, deps.access), stop: async () => recordings.close() };
  return { desktop, area };
}
