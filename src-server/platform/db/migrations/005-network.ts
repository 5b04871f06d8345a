import type { Migration } from './migration.js';

/** Networking: egress proxy ports per box, the egress log, custom domains (listeners are in 002). */
export const m005: Migration = {
  id: 5,
  name: 'network',
  sql: `
CREATE TABLE egress_ports (
  box_id TEXT PRIMARY KEY,
  port INTEGER NOT NULL
);
CREATE TABLE egress_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  box_id TEXT NOT NULL,
  at TEXT NOT NULL,
  method TEXT NOT NULL,
  host TEXT NOT NULL,
  port INTEGER NOT NULL,
  path TEXT,
  verdict TEXT NOT NULL CHECK (verdict IN ('allow', 'deny', 'respond')),
  policy_id TEXT,
  rule_index INTEGER,
  status INTEGER,
  bytes_out INTEGER NOT NULL DEFAULT 0,
  bytes_in INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX egress_log_box ON egress_log(box_id, id);
CREATE TABLE box_domains (
  domain TEXT PRIMARY KEY,
  box_id TEXT NOT NULL,
  org_id TEXT NOT NULL,
  guest_port INTEGER,
  created_at TEXT NOT NULL
);
CREATE INDEX box_domains_box ON box_domains(box_id);
`,
};
