import type { Migration } from './migration.js';

/**
 * E2B's `network.allowPublicTraffic` (issue 37): false makes a sandbox's getHost addresses
 * (Box's ingress, `<port>-<id>.box.localhost`) answer only requests that carry its traffic
 * access token in `e2b-traffic-access-token`. Existing sandboxes stay public (E2B's default).
 */
export const m278: Migration = {
  id: 278,
  name: 'e2b-public-traffic',
  sql: `
ALTER TABLE e2b_sandboxes ADD COLUMN public_traffic INTEGER NOT NULL DEFAULT 1;
`,
};
