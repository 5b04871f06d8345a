import type { Migration } from './migration.js';

/**
 * Egress CA rotation with a grace period: the certificates of replaced CAs stay trusted in
 * boxes until `trusted_until` (only the public certificate is kept; the proxy signs with
 * the current CA alone), so connections and processes that predate a rotation survive it.
 */
export const m113: Migration = {
  id: 113,
  name: 'egress-ca-retired',
  sql: `
CREATE TABLE egress_ca_retired (
  fingerprint_sha256 TEXT PRIMARY KEY,
  cert_pem TEXT NOT NULL,
  retired_at TEXT NOT NULL,
  trusted_until TEXT NOT NULL
);
`,
};
