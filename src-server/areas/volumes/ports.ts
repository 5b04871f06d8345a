/** What other areas use of the volumes area besides its module: the service's type (boxes mount volumes). */
export type { VolumesService } from './volumes-service.js';
/** A volume path's segments (no "..", relative to the root): the E2B area's volume content API uses the same rule. */
export { volumeSegments } from './volume-path.js';
