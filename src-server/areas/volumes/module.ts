import type { AppBase } from '../../platform/app-context.js';
import type { Area } from '../../platform/area.js';
import { browseRoutes } from './browse-routes.js';
import { fileOpsRoutes } from './file-ops-routes.js';
import { volumeRoutes } from './volumes-routes.js';
import { Volumes } from './volumes-service.js';

/**
 * Volumes: shared storage under `<dataDir>/volumes/<volume_id>/data/`, browsable and
 * transferable without a box. Tuning: `volumeFileMaxBytes` (file PUT limit),
 * `volumeCreateDelayMs` (tests only: keeps a create in flight).
 */
export function volumesArea(app: AppBase) {
  const volumes = new Volumes(app);
  const area: Area = {
    name: 'volumes',
    routes(r) {
      volumeRoutes(r, volumes, app.config.tuning.volumeCreateDelayMs);
      browseRoutes(r, volumes);
      fileOpsRoutes(r, volumes);
    },
  };
  return { volumes, area };
}
export type { Volumes } from './volumes-service.js';
