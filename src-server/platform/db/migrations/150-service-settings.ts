import type { Migration } from './migration.js';

/** Service-wide settings (issue 15: what quitting does to running boxes), small JSON values by key. */
export const m150: Migration = {
  id: 150,
  name: 'service-settings',
  sql: `
CREATE TABLE service_settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
`,
};
