import type { Migration } from './migration.js';

export const m004: Migration = {
  id: 4,
  name: 'cron',
  sql: `
CREATE TABLE cron_jobs (
  id TEXT PRIMARY KEY,
  box_id TEXT NOT NULL,
  org_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  schedule TEXT NOT NULL,
  timezone TEXT NOT NULL,
  command TEXT NOT NULL,
  cwd TEXT,
  user TEXT,
  env_names TEXT,
  env_sealed BLOB,
  timeout INTEGER,
  next_run_at TEXT NOT NULL,
  last_run_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX cron_box ON cron_jobs(box_id, seq);
CREATE INDEX cron_due ON cron_jobs(next_run_at);
CREATE TABLE cron_runs (
  id TEXT PRIMARY KEY,
  cron_id TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  status TEXT NOT NULL,
  return_code INTEGER,
  output_tail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX cron_runs_job ON cron_runs(cron_id, started_at);
`,
};
