import type { Migration } from './migration.js';

/**
 * Egress TLS interception: the per-install CA (one row; its private key sealed with the
 * data dir's CryptoBox) and, per logged request, how long it took and whether the proxy
 * saw inside TLS (`intercepted`: method and path of an https request are then known).
 */
export const m013: Migration = {
  id: 13,
  name: 'egress-tls',
  sql: `
CREATE TABLE egress_ca (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  cert_pem TEXT NOT NULL,
  key_sealed BLOB NOT NULL,
  fingerprint_sha256 TEXT NOT NULL,
  created_at TEXT NOT NULL
);
ALTER TABLE egress_log ADD COLUMN duration_ms INTEGER;
ALTER TABLE egress_log ADD COLUMN scheme TEXT NOT NULL DEFAULT 'http';
`,
};
