import type { Migration } from './migration.js';

/** Why the egress proxy refused, answered or failed a request, in words (issue 29): shown beside the log row. */
export const m129: Migration = {
  id: 129,
  name: 'egress-reason',
  sql: `
ALTER TABLE egress_log ADD COLUMN reason TEXT;
`,
};
