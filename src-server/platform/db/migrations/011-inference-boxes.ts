import type { Migration } from './migration.js';

/**
 * Inference from inside boxes (issue 10): a per-box token budget on the box (null =
 * unlimited) and token use per box, model and UTC day (the per-box half of
 * token_usage_daily, written in the same flush). Also inference settings (local engine
 * discovery on/off, dismissed engines) and catalog model pulls (resumable downloads).
 */
export const m011: Migration = {
  id: 11,
  name: 'inference-boxes',
  sql: `
ALTER TABLE boxes ADD COLUMN inference_budget_tokens INTEGER;
CREATE TABLE box_token_usage (
  box_id TEXT NOT NULL,
  day TEXT NOT NULL,
  model TEXT NOT NULL,
  org_id TEXT NOT NULL,
  requests INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  usd_nanos INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (box_id, day, model)
) WITHOUT ROWID;
CREATE INDEX box_token_usage_org_day ON box_token_usage(org_id, day);
CREATE TABLE inference_settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE model_pulls (
  id TEXT PRIMARY KEY,
  catalog_id TEXT,
  url TEXT NOT NULL,
  name TEXT NOT NULL,
  sha256 TEXT,
  state TEXT NOT NULL,
  bytes_done INTEGER NOT NULL DEFAULT 0,
  bytes_total INTEGER,
  error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
`,
};
