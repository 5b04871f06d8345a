import type { Migration } from './migration.js';

/**
 * Usage and metrics. Times are epoch milliseconds (range queries and bucketing are
 * arithmetic). Metrics: raw samples kept 24 h, 5-minute rollups (sums and counts, so
 * averages stay exact) kept 7 days. Box usage is kept per box per UTC hour; tokens per
 * org, model and UTC day.
 */
export const m007: Migration = {
  id: 7,
  name: 'usage',
  sql: `
CREATE TABLE box_metrics (
  box_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  cpu_used_vcpu REAL,
  memory_used_bytes INTEGER,
  disk_used_bytes INTEGER,
  PRIMARY KEY (box_id, at)
) WITHOUT ROWID;
CREATE INDEX box_metrics_at ON box_metrics(at);
CREATE TABLE box_metrics_5m (
  box_id TEXT NOT NULL,
  bucket INTEGER NOT NULL,
  cpu_sum REAL NOT NULL DEFAULT 0,
  cpu_n INTEGER NOT NULL DEFAULT 0,
  mem_sum REAL NOT NULL DEFAULT 0,
  mem_n INTEGER NOT NULL DEFAULT 0,
  disk_sum REAL NOT NULL DEFAULT 0,
  disk_n INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (box_id, bucket)
) WITHOUT ROWID;
CREATE INDEX box_metrics_5m_bucket ON box_metrics_5m(bucket);
CREATE TABLE box_usage_hourly (
  box_id TEXT NOT NULL,
  hour INTEGER NOT NULL,
  org_id TEXT NOT NULL,
  app_id TEXT NOT NULL,
  box_seconds REAL NOT NULL DEFAULT 0,
  vcpu_seconds REAL NOT NULL DEFAULT 0,
  memory_gib_seconds REAL NOT NULL DEFAULT 0,
  usd_nanos INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (box_id, hour)
) WITHOUT ROWID;
CREATE INDEX box_usage_org_hour ON box_usage_hourly(org_id, hour);
CREATE TABLE token_usage_daily (
  org_id TEXT NOT NULL,
  day TEXT NOT NULL,
  model TEXT NOT NULL,
  requests INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  usd_nanos INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, day, model)
) WITHOUT ROWID;
`,
};
