/** What other areas use of the volumes area besides its module: the service's type (boxes mount volumes). */
export type { VolumesService } from './volumes-service.js';
