import crypto from 'node:crypto';
import type { components } from '@box/contract/e2b-openapi.gen';
import { conflict, invalid, notFound } from '../../kernel/domain-errors.js';
import type { Db } from '../../platform/db/connection.js';
import type { SecretsPort } from './ports.js';

/** E2B's Secret, as E2B's OpenAPI document defines it (generated). */
type E2BSecret = components['schemas']['Secret'];

/** The E2B names Box can keep: a Box secret name once `-` reads `_` (Box: letters, digits, `_`). */
const E2B_NAME = /^[a-z_][a-z0-9_-]{0,127}$/;
const BOX_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * The Box secret an E2B secret name is: lower-cased (E2B stores names so), `-` as `_`. A name
 * Box cannot hold is refused naming `param` rather than changed past recognition.
 */
export function boxSecretName(name: string, param = 'name'): string {
  const n = name.toLowerCase();
  if (n.startsWith('sec_')) throw invalid(`${param}: "${name}" starts with sec_, which is kept for secret ids`, param);
  if (!E2B_NAME.test(n))
    throw invalid(
      `${param}: "${name}" must start with a letter or "_" and hold up to 128 letters, digits, "_" or "-" (Box keeps it as the Box secret ${JSON.stringify(n.replace(/-/g, '_'))})`,
      param,
    );
  return n.replace(/-/g, '_');
}

/**
 * E2B's `${e2b.secrets.NAME}` placeholders (the SDK's `Secret.fill`) in a network rule's header
 * value, as Box's `${secrets.NAME}`: Box's egress proxy puts the value in on the host, so the
 * secret never enters the sandbox.
 */
export function boxSecretRefs(value: string, param: string): string {
  return value.replace(/\$\{e2b\.secrets\.([^}]*)\}/g, (_m, name: string) => `\${secrets.${BOX_NAME.test(name) ? name : boxSecretName(name, param)}}`);
}

interface Row {
  org_id: string;
  box_name: string;
  secret_id: string;
  name: string;
  version: number;
  metadata: string;
  seen_updated_at: string;
}

/**
 * E2B's secrets (`/secrets`) as Box secrets: the value is a Box secret's (encrypted at rest,
 * never shown, resolved only by the egress proxy on the host), so an E2B secret is listed by
 * `box secret list`, the MCP tools and the SDKs, and a Box secret is listed by E2B's
 * `Secret.list`. What E2B adds (its `sec_` id, version and metadata) is kept beside it
 * (e2b_secrets); a change made through Box's own API counts as a new version.
 */
export class E2BSecrets {
  constructor(
    private db: Db,
    private secrets: SecretsPort,
  ) {}

  private async row(orgId: string, boxName: string) {
    return await this.db.get<Row>('SELECT * FROM e2b_secrets WHERE org_id = ? AND box_name = ?', [orgId, boxName]);
  }

  /** The Box secret an id, E2B name or Box name selects (undefined: none). */
  private async boxName(orgId: string, selector: string): Promise<string | undefined> {
    const byId = await this.db.get<{ box_name: string }>('SELECT box_name FROM e2b_secrets WHERE org_id = ? AND secret_id = ?', [orgId, selector]);
    if (byId) return byId.box_name;
    if (BOX_NAME.test(selector) && (await this.secrets.meta(orgId, selector))) return selector;
    try {
      return boxSecretName(selector, 'secretID');
    } catch {
      return undefined;
    }
  }

  /** The E2B view of a Box secret (its row made on first sight, its version moved on by a change made elsewhere). */
  private async view(orgId: string, boxName: string): Promise<E2BSecret | undefined> {
    const meta = await this.secrets.meta(orgId, boxName);
    let row = await this.row(orgId, boxName);
    if (!meta) {
      if (row) await this.db.run('DELETE FROM e2b_secrets WHERE org_id = ? AND box_name = ?', [orgId, boxName]);
      return undefined;
    }
    if (!row) {
      row = {
        org_id: orgId,
        box_name: boxName,
        secret_id: `sec_${crypto.randomUUID()}`,
        name: boxName,
        version: 1,
        metadata: '{}',
        seen_updated_at: meta.updated_at,
      };
      // two first sights at once: one row wins, both answer it
      await this.db.run(
        `INSERT INTO e2b_secrets (org_id, box_name, secret_id, name, version, metadata, seen_updated_at)
         VALUES (@org_id, @box_name, @secret_id, @name, @version, @metadata, @seen_updated_at) ON CONFLICT (org_id, box_name) DO NOTHING`,
        row,
      );
      row = (await this.row(orgId, boxName)) ?? row;
    } else if (row.seen_updated_at !== meta.updated_at) {
      row = { ...row, version: row.version + 1, seen_updated_at: meta.updated_at };
      await this.db.run('UPDATE e2b_secrets SET version = ?, seen_updated_at = ? WHERE org_id = ? AND box_name = ?', [
        row.version,
        row.seen_updated_at,
        orgId,
        boxName,
      ]);
    }
    return {
      secretID: row.secret_id,
      name: row.name,
      currentVersion: row.version,
      metadata: JSON.parse(row.metadata) as Record<string, string>,
      createdAt: meta.created_at,
      updatedAt: meta.updated_at,
    };
  }

  /** Its row, replacing one left by a Box secret of that name deleted elsewhere. */
  private async upsert(r: Row) {
    await this.db.run(
      `INSERT INTO e2b_secrets (org_id, box_name, secret_id, name, version, metadata, seen_updated_at)
       VALUES (@org_id, @box_name, @secret_id, @name, @version, @metadata, @seen_updated_at)
       ON CONFLICT (org_id, box_name) DO UPDATE SET secret_id = excluded.secret_id, name = excluded.name, version = excluded.version,
         metadata = excluded.metadata, seen_updated_at = excluded.seen_updated_at`,
      r,
    );
  }

  private async found(orgId: string, selector: string): Promise<{ boxName: string; secret: E2BSecret }> {
    const boxName = await this.boxName(orgId, selector);
    const secret = boxName && (await this.view(orgId, boxName));
    if (!boxName || !secret) throw notFound(`Secret ${selector} not found`, 'not_found', 'secretID');
    return { boxName, secret };
  }

  async create(orgId: string, body: { name: string; value: string; metadata?: Record<string, string> }): Promise<E2BSecret> {
    const name = body.name.toLowerCase();
    const boxName = boxSecretName(body.name);
    if (await this.secrets.meta(orgId, boxName))
      throw conflict(`A secret named ${name} already exists (the Box secret ${boxName}): update it instead.`, 'already_exists', 'name');
    const meta = await this.secrets.put(orgId, boxName, body.value);
    const id = `sec_${crypto.randomUUID()}`;
    await this.upsert({
      org_id: orgId,
      box_name: boxName,
      secret_id: id,
      name,
      version: 1,
      metadata: JSON.stringify(body.metadata ?? {}),
      seen_updated_at: meta.updated_at,
    });
    return (await this.view(orgId, boxName))!;
  }

  async get(orgId: string, selector: string): Promise<E2BSecret> {
    return (await this.found(orgId, selector)).secret;
  }

  /** A new version: the new value (and metadata, when given). */
  async update(orgId: string, selector: string, body: { value: string; metadata?: Record<string, string> }): Promise<E2BSecret> {
    const { boxName, secret } = await this.found(orgId, selector);
    const meta = await this.secrets.put(orgId, boxName, body.value);
    await this.db.run('UPDATE e2b_secrets SET version = ?, seen_updated_at = ?, metadata = ? WHERE org_id = ? AND box_name = ?', [
      secret.currentVersion + 1,
      meta.updated_at,
      JSON.stringify(body.metadata ?? secret.metadata),
      orgId,
      boxName,
    ]);
    return (await this.view(orgId, boxName))!;
  }

  async delete(orgId: string, selector: string): Promise<void> {
    const { boxName } = await this.found(orgId, selector);
    await this.secrets.delete(orgId, boxName);
    await this.db.run('DELETE FROM e2b_secrets WHERE org_id = ? AND box_name = ?', [orgId, boxName]);
  }

  /** One page, by name; `nextToken` is the next page's offset. */
  async list(orgId: string, limit: number, nextToken?: string): Promise<{ items: E2BSecret[]; nextToken?: string }> {
    const offset = nextToken ? Number(nextToken) : 0;
    const { rows, total } = await this.secrets.list(orgId, limit, offset);
    const items: E2BSecret[] = [];
    for (const m of rows) {
      const v = await this.view(orgId, m.name);
      if (v) items.push(v);
    }
    return { items, ...(offset + rows.length < total ? { nextToken: String(offset + rows.length) } : {}) };
  }
}
