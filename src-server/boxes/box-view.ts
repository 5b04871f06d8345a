import type { Box } from '../contract/boxes.js';
import type { BoxRecord } from './boxes-repo.js';

/** Where a box's published ports answer (filled by the network area: `boxes.hooks.network.ingressUrls`). */
export type IngressUrls = (box: BoxRecord) => Promise<Box['ingress_urls']>;

/** Public shape of a box (ours, beyond the spec: contract/routes.ts), with the URL of each published port. */
export const toBox = async (b: BoxRecord, ingressUrls: IngressUrls = () => Promise.resolve([])): Promise<Box> => {
  const { org_id: _o, last_activity_at: _l, ...box } = b;
  return { ...box, ingress_urls: await ingressUrls(b) };
};
