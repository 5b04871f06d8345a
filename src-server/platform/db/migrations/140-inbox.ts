import type { Migration } from './migration.js';

/**
 * The webhook inbox (issue 13: it lived in memory and was lost on restart). Deliveries
 * keep at most 256 KiB of body each; `kept_bytes` (body + headers kept) lets the store
 * bound each organization's total and drop the oldest first.
 */
export const m140: Migration = {
  id: 140,
  name: 'inbox',
  sql: `
CREATE TABLE inboxes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  inbox_id TEXT NOT NULL UNIQUE,
  org_id TEXT NOT NULL,
  respond_status INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX inboxes_org ON inboxes (org_id, seq);
CREATE TABLE inbox_deliveries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id TEXT NOT NULL UNIQUE,
  inbox_id TEXT NOT NULL REFERENCES inboxes (inbox_id) ON DELETE CASCADE,
  org_id TEXT NOT NULL,
  received_at TEXT NOT NULL,
  method TEXT NOT NULL,
  headers TEXT NOT NULL,
  body BLOB NOT NULL,
  body_bytes INTEGER NOT NULL,
  body_truncated INTEGER NOT NULL,
  answered_status INTEGER NOT NULL,
  kept_bytes INTEGER NOT NULL
);
CREATE INDEX inbox_deliveries_inbox ON inbox_deliveries (inbox_id, seq);
CREATE INDEX inbox_deliveries_org ON inbox_deliveries (org_id, seq);
`,
};
