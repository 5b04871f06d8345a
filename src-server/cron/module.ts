import type { AppBase } from '../app-context.js';
import type { Area } from '../area.js';
import type { BoxAccess } from '../boxes/ports.js';
import type { BoxService } from '../boxes/module.js';
import type { ExecService } from '../boxes/module.js';
import { cronRoutes } from './cron-routes.js';
import { CronRunner } from './cron-runner.js';
import { CronService } from './cron-service.js';

/** Cron jobs of boxes: records, the spec's list, and the runner (runs through exec). */
export function cronArea(app: AppBase, deps: { boxes: BoxService; execs: ExecService; access: BoxAccess }) {
  const cron = new CronService(app);
  const cronRunner = new CronRunner(app, cron, deps.boxes, deps.execs);
  deps.boxes.hooks.onGone(async (boxId) => await cron.repo.deleteForBox(boxId));
  const area: Area = {
    name: 'cron',
    routes: (r) => cronRoutes(r, { cron, cronRunner, access: deps.access }),
    start: async () => {
      await cron.recover();
      cronRunner.start();
    },
    stop: () => cronRunner.stop(),
  };
  return { cron, cronRunner, area };
}
