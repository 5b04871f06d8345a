import type { Migration } from './migration.js';

/**
 * Inference: stored responses of all three wire styles (read back through
 * GET /v1/responses/{id}), the persistent background queue (status queued/in_progress),
 * upstream engines (API key sealed with util/crypto-box), local model downloads, and
 * completion-webhook deliveries with every attempt (a delivery is `waiting` until its
 * response finishes, `skipped` when it failed). Times are unix milliseconds.
 */
export const m003: Migration = {
  id: 3,
  name: 'inference',
  sql: `
CREATE TABLE inference_responses (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  key_id TEXT NOT NULL,
  style TEXT NOT NULL CHECK (style IN ('responses', 'chat', 'messages')),
  model TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'in_progress', 'completed', 'incomplete', 'failed')),
  background INTEGER NOT NULL DEFAULT 0,
  request TEXT NOT NULL,
  echo TEXT NOT NULL,
  metadata TEXT NOT NULL,
  result TEXT,
  error TEXT,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  completed_at INTEGER
);
CREATE INDEX inference_responses_open ON inference_responses(status, created_at)
  WHERE status IN ('queued', 'in_progress');
CREATE TABLE inference_engines (
  name TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('openai', 'anthropic')),
  base_url TEXT NOT NULL,
  api_key_sealed BLOB,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE inference_downloads (
  id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
  bytes_done INTEGER NOT NULL DEFAULT 0,
  bytes_total INTEGER,
  model_id TEXT,
  error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE webhook_deliveries (
  response_id TEXT PRIMARY KEY REFERENCES inference_responses(id),
  org_id TEXT NOT NULL REFERENCES orgs(id),
  url TEXT NOT NULL,
  token_sealed BLOB,
  state TEXT NOT NULL CHECK (state IN ('waiting', 'pending', 'delivered', 'failed', 'skipped')),
  rounds_done INTEGER NOT NULL DEFAULT 0,
  round_limit INTEGER NOT NULL,
  next_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_at) WHERE state = 'pending';
CREATE TABLE webhook_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  response_id TEXT NOT NULL REFERENCES webhook_deliveries(response_id),
  round INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  at INTEGER NOT NULL,
  status_code INTEGER,
  latency_ms INTEGER NOT NULL,
  error TEXT
);
CREATE INDEX webhook_attempts_response ON webhook_attempts(response_id, id);
`,
};
