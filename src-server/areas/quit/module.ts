import type { AppBase } from '../../platform/app-context.js';
import type { Area } from '../../platform/area.js';
import type { BoxService } from '../boxes/module.js';
import { QuitService } from './quit-service.js';
import { quitRoutes } from './quit-routes.js';

export type { QuitService };

export function quitArea(app: AppBase, deps: { boxes: BoxService }) {
  const quit = new QuitService(app, deps.boxes);
  app.statusProviders.push(() => ({ shell: app.config.shell ?? 'headless' }));
  const area: Area = { name: 'quit', routes: (r) => quitRoutes(r, quit) };
  return { quit, area };
}
export { describeOnQuit } from './quit-plan.js';
export { onStopSignals } from './stop-signals.js';
