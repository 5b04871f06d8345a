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

  get(orgId: string, id: string): HttpPolicy | undefined {
    const r = this.db.prepare('SELECT * FROM http_policies WHERE org_id = ? AND id = ?').get(orgId, id) as Row | undefined;
    return r && toPolicy(r);
  }

  list(orgId: string, limit: number, offset: number): { rows: HttpPolicy[]; total: number } {
    const rows = this.db.prepare('SELECT * FROM http_policies WHERE org_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?').all(orgId, limit, offset) as Row[];
    const { n } = this.db.prepare('SELECT COUNT(*) AS n FROM http_policies WHERE org_id = ?').get(orgId) as { n: number };
    return { rows: rows.map(toPolicy), total: n };
  }

  insert(p: HttpPolicy): void {
    this.db
      .prepare('INSERT INTO http_policies (id, org_id, name, document, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(p.id, p.org_id, p.name, JSON.stringify(p.document), p.created_at, p.updated_at);
  }

  /** Spec: `updated_at` is "when the policy name last changed", so only a new name moves it. */
  update(orgId: string, id: string, name: string | undefined, document: PolicyDocument | undefined, at: string): void {
    const cur = this.get(orgId, id)!;
    const renamed = name !== undefined && name !== cur.name;
    this.db
      .prepare('UPDATE http_policies SET name = ?, document = ?, updated_at = ? WHERE org_id = ? AND id = ?')
      .run(name ?? cur.name, JSON.stringify(document ?? cur.document), renamed ? at : cur.updated_at, orgId, id);
  }

  delete(orgId: string, id: string): void {
    this.db.prepare('DELETE FROM http_policies WHERE org_id = ? AND id = ?').run(orgId, id);
  }

  /** Policies whose header values refer to `${secrets.<name>}`. */
  referencingSecret(orgId: string, name: string): HttpPolicy[] {
    const rows = this.db
      .prepare('SELECT * FROM http_policies WHERE org_id = ? AND instr(document, ?) > 0 ORDER BY created_at, id')
      .all(orgId, `\${secrets.${name}}`) as Row[];
    return rows
      .map(toPolicy)
      .filter((p) =>
        Object.values(p.document).some((h) => h.rules.some((r) => Object.values(r.request?.set.headers ?? {}).some((v) => secretRefs(v).includes(name)))),
      );
  }
}
