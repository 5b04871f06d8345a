import type { Db } from '../../db/connection.js';

interface EgressCaRow {
  cert_pem: string;
  /** The PKCS#8 private key sealed with the data dir's master key. */
  key_sealed: Buffer;
  fingerprint_sha256: string;
  created_at: string;
}

/**
 * The `egress_ca` table (network area): the one CA of this install, row id 1; a rotation
 * replaces it. `egress_ca_retired`: replaced CAs boxes still trust until their grace ends.
 */
export class EgressCaRepo {
  constructor(private db: Db) {}

  async get(): Promise<EgressCaRow | undefined> {
    return (await this.db.get('SELECT cert_pem, key_sealed, fingerprint_sha256, created_at FROM egress_ca WHERE id = 1')) as EgressCaRow | undefined;
  }

  async put(r: EgressCaRow): Promise<void> {
    await this.db.run(
      `INSERT INTO egress_ca (id, cert_pem, key_sealed, fingerprint_sha256, created_at) VALUES (1, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET cert_pem = excluded.cert_pem, key_sealed = excluded.key_sealed,
           fingerprint_sha256 = excluded.fingerprint_sha256, created_at = excluded.created_at`,
      [r.cert_pem, r.key_sealed, r.fingerprint_sha256, r.created_at],
    );
  }

  async retire(fingerprint: string, certPem: string, retiredAt: string, trustedUntil: string): Promise<void> {
    await this.db.run(
      `INSERT INTO egress_ca_retired (fingerprint_sha256, cert_pem, retired_at, trusted_until) VALUES (?, ?, ?, ?)
       ON CONFLICT (fingerprint_sha256) DO UPDATE SET cert_pem = excluded.cert_pem, retired_at = excluded.retired_at, trusted_until = excluded.trusted_until`,
      [fingerprint, certPem, retiredAt, trustedUntil],
    );
  }

  /** Forgets retired CAs whose grace ended by `now`; answers the others, newest first. */
  async retiredStillTrusted(now: string): Promise<{ cert_pem: string; fingerprint_sha256: string; trusted_until: string }[]> {
    await this.db.run('DELETE FROM egress_ca_retired WHERE trusted_until <= ?', [now]);
    return (await this.db.all('SELECT cert_pem, fingerprint_sha256, trusted_until FROM egress_ca_retired ORDER BY retired_at DESC')) as {
      cert_pem: string;
      fingerprint_sha256: string;
      trusted_until: string;
    }[];
  }
}
