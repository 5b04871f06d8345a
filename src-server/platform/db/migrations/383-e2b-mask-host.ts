import type { Migration } from './migration.js';

/**
 * E2B's `network.maskRequestHost` (issue 33): the Host header a sandbox's servers get for
 * requests to its getHost addresses (`${PORT}` stands for the port), instead of the request's.
 * Null: the request's Host is kept.
 */
export const m383: Migration = {
  id: 383,
  name: 'e2b-mask-host',
  sql: `
ALTER TABLE e2b_sandboxes ADD COLUMN mask_request_host TEXT;
`,
};
