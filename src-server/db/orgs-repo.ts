import { randomBytes } from 'node:crypto';
import type { Db } from './connection.js';

interface OrgRow {
  id: string;
  name: string;
  credits_usd_nanos: number;
  webhook_secret: string;
  created_at: string;
}

/** A fresh install starts with this much credit (USD 100), drawn down by usage. */
const STARTING_CREDITS_NANOS = 100_000_000_000;

export class OrgsRepo {
  /**
   * Whether an organization is out of credits, asked on every request (http/limits.ts):
   * kept in memory, and every write to credits goes through this repository, which drops
   * the organization's entry (so the next request reads the database again).
   */
  private exhausted = new Map<string, boolean>();

  constructor(private db: Db) {}

  /** True when the organization exists and has no credits left. */
  async outOfCredits(id: string): Promise<boolean> {
    let v = this.exhausted.get(id);
    if (v === undefined) {
      const row = (await this.db.get('SELECT credits_usd_nanos FROM orgs WHERE id = ?', [id])) as { credits_usd_nanos: number } | undefined;
      v = row !== undefined && row.credits_usd_nanos <= 0;
      this.exhausted.set(id, v);
    }
    return v;
  }

  async get(id: string): Promise<OrgRow | undefined> {
    return (await this.db.get('SELECT * FROM orgs WHERE id = ?', [id])) as OrgRow | undefined;
  }

  async first(): Promise<OrgRow | undefined> {
    return (await this.db.get('SELECT * FROM orgs ORDER BY created_at LIMIT 1')) as OrgRow | undefined;
  }

  /** The local install has one organization, made on first start. */
  async ensureDefault(): Promise<OrgRow> {
    const existing = await this.first();
    if (existing) return existing;
    const row: OrgRow = {
      id: `org_${crypto.randomUUID()}`,
      name: 'Local',
      credits_usd_nanos: STARTING_CREDITS_NANOS,
      webhook_secret: `whsec_${randomBytes(32).toString('base64')}`,
      created_at: new Date().toISOString(),
    };
    await this.db.run(
      'INSERT INTO orgs (id, name, credits_usd_nanos, webhook_secret, created_at) VALUES (@id, @name, @credits_usd_nanos, @webhook_secret, @created_at)',
      row,
    );
    return row;
  }

  async rename(id: string, name: string): Promise<void> {
    await this.db.run('UPDATE orgs SET name = ? WHERE id = ?', [name, id]);
  }

  async setCredits(id: string, nanos: number): Promise<void> {
    this.exhausted.delete(id);
    await this.db.run('UPDATE orgs SET credits_usd_nanos = ? WHERE id = ?', [nanos, id]);
  }

  /** Draws usage down; credits never go below zero. */
  async charge(id: string, nanos: number): Promise<void> {
    if (nanos <= 0) return;
    this.exhausted.delete(id);
    // CASE, not MAX(0, x): PostgreSQL's MAX is only an aggregate (its two-value one is GREATEST)
    await this.db.run('UPDATE orgs SET credits_usd_nanos = CASE WHEN credits_usd_nanos > @n THEN credits_usd_nanos - @n ELSE 0 END WHERE id = @id', {
      n: Math.round(nanos),
      id,
    });
  }
}
