import type { Migration } from './migration.js';

export const m001: Migration = {
  id: 1,
  name: 'core',
  sql: `
CREATE TABLE orgs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  credits_usd_nanos INTEGER NOT NULL,
  webhook_secret TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('organization', 'user')),
  user_id TEXT,
  secret_hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);
CREATE TABLE ui_sessions (
  token_hash TEXT PRIMARY KEY,
  key_id TEXT NOT NULL REFERENCES api_keys(id),
  kind TEXT NOT NULL CHECK (kind IN ('link', 'session')),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE TABLE idempotency_keys (
  api_key_id TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
  status INTEGER,
  content_type TEXT,
  body BLOB,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (api_key_id, key)
);
CREATE INDEX idempotency_created ON idempotency_keys(created_at);
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  org_id TEXT NOT NULL,
  at TEXT NOT NULL,
  key_id TEXT,
  action TEXT NOT NULL,
  target TEXT,
  reason TEXT,
  details TEXT
);
CREATE INDEX audit_org ON audit_log(org_id, id);
CREATE TABLE apps (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (org_id, name)
);
CREATE TABLE volumes (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  backend TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ready', 'deleted')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX volumes_live_name ON volumes(org_id, name) WHERE status = 'ready';
CREATE TABLE http_policies (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  document TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE secrets (
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  ciphertext BLOB NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (org_id, name)
);
CREATE TABLE ssh_cas (
  org_id TEXT PRIMARY KEY REFERENCES orgs(id),
  private_key TEXT NOT NULL,
  public_key TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE boxes (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  app_id TEXT NOT NULL REFERENCES apps(id),
  name TEXT NOT NULL,
  image TEXT NOT NULL,
  status TEXT NOT NULL,
  error_message TEXT,
  visibility TEXT NOT NULL CHECK (visibility IN ('org', 'private')),
  created_by_key_id TEXT NOT NULL,
  vcpu_count INTEGER NOT NULL,
  memory_mib INTEGER NOT NULL,
  disk_gib INTEGER NOT NULL,
  ingress_ports TEXT NOT NULL DEFAULT '[]',
  volume_mounts TEXT NOT NULL DEFAULT '[]',
  http_policy_id TEXT REFERENCES http_policies(id),
  auto_sleep TEXT NOT NULL DEFAULT '{"automatic":false,"min_seconds_before_sleep":null}',
  wake_at TEXT,
  checkpoint_generation INTEGER NOT NULL DEFAULT 0,
  last_checkpointed_at TEXT,
  last_activity_at TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX boxes_org ON boxes(org_id, created_at);
`,
};
