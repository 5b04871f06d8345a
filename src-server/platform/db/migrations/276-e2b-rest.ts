import type { Migration } from './migration.js';

/**
 * E2B's secrets, volumes and template builds on Box's (issue 33). A secret is a Box secret
 * (its value encrypted there); this row keeps what E2B's API adds: its `sec_` id, E2B name,
 * version and metadata. A volume is a Box volume; this row keeps the token of E2B's volume
 * content API. A template build is a Box image build; these rows keep its status and log, so
 * builds survive a restart and can be listed and deleted as E2B's API does.
 */
export const m276: Migration = {
  id: 276,
  name: 'e2b-rest',
  sql: `
CREATE TABLE e2b_secrets (
  org_id TEXT NOT NULL,
  box_name TEXT NOT NULL,
  secret_id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  metadata TEXT NOT NULL,
  seen_updated_at TEXT NOT NULL,
  PRIMARY KEY (org_id, box_name)
);
CREATE TABLE e2b_volumes (
  volume_id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  token TEXT NOT NULL
);
CREATE TABLE e2b_template_builds (
  build_id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  template_id TEXT NOT NULL,
  status TEXT NOT NULL,
  memory_mib INTEGER,
  reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX e2b_template_builds_org ON e2b_template_builds (org_id, template_id, created_at);
CREATE TABLE e2b_template_build_logs (
  build_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  at TEXT NOT NULL,
  level TEXT NOT NULL,
  message TEXT NOT NULL,
  step TEXT,
  PRIMARY KEY (build_id, seq)
);
`,
};
