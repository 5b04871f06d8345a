import type { Migration } from './migration.js';

/**
 * E2B sandboxes (issue 27): each is a box of the organization; this row keeps what E2B's
 * API knows about it and Box does not (template, metadata, its envd access token, the
 * timeout and what happens at it).
 */
export const m270: Migration = {
  id: 270,
  name: 'e2b-sandboxes',
  sql: `
CREATE TABLE e2b_sandboxes (
  box_id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  key_id TEXT NOT NULL,
  template_id TEXT NOT NULL,
  metadata TEXT NOT NULL,
  envs TEXT NOT NULL,
  access_token TEXT NOT NULL,
  auto_pause INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  end_at TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX e2b_sandboxes_org ON e2b_sandboxes (org_id, started_at);
`,
};
