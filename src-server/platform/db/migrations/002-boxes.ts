import type { Migration } from './migration.js';

export const m002: Migration = {
  id: 2,
  name: 'boxes runtime',
  sql: `
CREATE UNIQUE INDEX boxes_live_name ON boxes(org_id, name) WHERE status NOT IN ('terminated');
CREATE TABLE checkpoints (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  box_id TEXT NOT NULL,
  app_id TEXT NOT NULL,
  name TEXT,
  generation INTEGER NOT NULL,
  status TEXT NOT NULL,
  size_bytes INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  expires_at TEXT
);
CREATE INDEX checkpoints_box ON checkpoints(box_id, created_at);
CREATE TABLE box_forks (
  box_id TEXT PRIMARY KEY,
  parent_box_id TEXT,
  checkpoint_id TEXT
);
CREATE TABLE execs (
  id TEXT PRIMARY KEY,
  box_id TEXT NOT NULL,
  org_id TEXT NOT NULL,
  command TEXT NOT NULL,
  tty INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  return_code INTEGER,
  idempotency_key TEXT,
  stdout_tail BLOB,
  stderr_tail BLOB,
  started_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX execs_box ON execs(box_id, started_at);
CREATE UNIQUE INDEX execs_idem ON execs(box_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE TABLE listeners (
  box_id TEXT NOT NULL,
  guest_port INTEGER NOT NULL,
  protocol TEXT NOT NULL,
  host_port INTEGER,
  created_at TEXT NOT NULL,
  PRIMARY KEY (box_id, guest_port)
);
`,
};
