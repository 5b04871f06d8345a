import type { Box } from '../contract/boxes.js';
import type { BoxRecord } from './boxes-repo.js';

/** Public shape of a box (ours, beyond the spec: contract/routes.ts). */
export const toBox = (b: BoxRecord): Box => {
  const { org_id: _o, last_activity_at: _l, ...box } = b;
  return box;
};
