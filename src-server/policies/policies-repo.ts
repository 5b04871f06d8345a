import type { Db } from '../db/connection.js';
import { secretRefs, type HttpPolicy, type PolicyDocument } from '../contract/policies.js';

interface Row {
  id: string;
  org_id: string;
  name: string;
  document: string;
  created_at: string;
  updated_at: string;
}

const toPolicy = (r: Row): HttpPolicy => ({ ...r, document: JSON.parse(r.document) as PolicyDocument });

/** The only SQL on `http_policies` (the boxes' `http_policy_id` column belongs to BoxesRepo). */
export class PoliciesRepo {
  constructor(private db: Db) {}

  async get(orgId: string, id: string): Promise<HttpPolicy | undefined> {
    const r = (await this.db.get('SELECT * FROM http_policies WHERE org_id = ? AND id = ?', [orgId, id])) as Row | undefined;
    return r && toPolicy(r);
  }

  async list(orgId: string, limit: number, offset: number): Promise<{ rows: HttpPolicy[]; total: number }> {
    const rows = (await this.db.all('SELECT * FROM http_policies WHERE org_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?', [orgId, limit, offset])) as Row[];
    const { n } = (await this.db.get('SELECT COUNT(*) AS n FROM http_policies WHERE org_id = ?', [orgId])) as { n: number };
    return { rows: rows.map(toPolicy), total: n };
  }

  async insert(p: HttpPolicy): Promise<void> {
    await this.db.run('INSERT INTO http_policies (id, org_id, name, document, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [
      p.id,
      p.org_id,
      p.name,
      JSON.stringify(p.document),
      p.created_at,
      p.updated_at,
    ]);
  }

  /** Spec: `updated_at` is "when the policy name last changed", so only a new name moves it. */
  async update(orgId: string, id: string, name: string | undefined, document: PolicyDocument | undefined, at: string): Promise<void> {
    const cur = (await this.get(orgId, id))!;
    const renamed = name !== undefined && name !== cur.name;
    await this.db.run('UPDATE http_policies SET name = ?, document = ?, updated_at = ? WHERE org_id = ? AND id = ?', [
      name ?? cur.name,
      JSON.stringify(document ?? cur.document),
      renamed ? at : cur.updated_at,
      orgId,
      id,
    ]);
  }

  async delete(orgId: string, id: string): Promise<void> {
    await this.db.run('DELETE FROM http_policies WHERE org_id = ? AND id = ?', [orgId, id]);
  }

  /** Policies whose header values refer to `${secrets.<name>}`. */
  async referencingSecret(orgId: string, name: string): Promise<HttpPolicy[]> {
    const rows = (await this.db.all(
      `SELECT * FROM http_policies WHERE org_id = ? AND ${this.db.dialect === 'sqlite' ? 'instr' : 'strpos'}(document, ?) > 0 ORDER BY created_at, id`,
      [orgId, `\${secrets.${name}}`],
    )) as Row[];
    return rows
      .map(toPolicy)
      .filter((p) =>
        Object.values(p.document).some((h) => h.rules.some((r) => Object.values(r.request?.set.headers ?? {}).some((v) => secretRefs(v).includes(name)))),
      );
  }
}
