import type { AreaModule } from '../app-context.js';
import { cronRoutes } from './cron-routes.js';
import { CronRunner } from './cron-runner.js';
import { CronService } from './cron-service.js';

declare module '../app-context.js' {
  interface Services {
    cron: CronService;
    cronRunner: CronRunner;
  }
}

/** Cron jobs of boxes: records, the spec's list, and the runner (needs the boxes area). */
export const cronModule: AreaModule = {
  name: 'cron',
  install(app, r) {
    app.services.cron = new CronService(app);
    app.services.cronRunner = new CronRunner(app, app.services.cron);
    cronRoutes(r);
  },
  start(app) {
    app.services.cronRunner!.start();
  },
  stop(app) {
    app.services.cronRunner?.stop();
  },
};
