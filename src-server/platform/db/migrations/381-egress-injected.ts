import type { Migration } from './migration.js';

/** The egress log says which headers a policy injected (names and secret names, never values) and when http:// went on over HTTPS (issue 38). */
export const m381: Migration = {
  id: 381,
  name: 'egress-injected-headers',
  sql: `
ALTER TABLE egress_log ADD COLUMN injected_headers TEXT;
ALTER TABLE egress_log ADD COLUMN upgraded_to_https INTEGER;
`,
};
