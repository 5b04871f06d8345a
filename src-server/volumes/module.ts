import type { AreaModule } from '../app-context.js';
import { browseRoutes } from './browse-routes.js';
import { volumeRoutes } from './routes.js';
import { Volumes } from './service.js';

/**
 * Volumes: shared storage under `<dataDir>/volumes/<volume_id>/data/`, browsable and
 * transferable without a box. Tuning: `volumeFileMaxBytes` (file PUT limit),
 * `volumeCreateDelayMs` (tests only: keeps a create in flight).
 */
export const volumesModule: AreaModule = {
  name: 'volumes',
  install(app, r) {
    const vols = new Volumes(app);
    app.services.volumes = vols;
    volumeRoutes(r, vols, Number(app.config.tuning.volumeCreateDelayMs ?? 0));
    browseRoutes(r, vols);
  },
};
