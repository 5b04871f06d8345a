import { invalid, notFound } from '../../kernel/domain-errors.js';
import type { Db } from '../../platform/db/connection.js';

/** E2B's default tag: a build requested without one has it. */
export const DEFAULT_TAG = 'default';
const TAG = /^[a-z0-9._-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** E2B's tag rule (infra id.ValidateAndDeduplicateTags): trimmed, lowercased, `[a-z0-9._-]+`, not a UUID; duplicates dropped. */
export function cleanTags(tags: string[], param: string): string[] {
  const out: string[] = [];
  for (const [i, raw] of tags.entries()) {
    const t = raw.trim().toLowerCase();
    if (!TAG.test(t)) throw invalid(`${param}[${i}]: invalid tag '${raw}': a tag is lowercase letters, digits, ".", "-" and "_"`, `${param}[${i}]`);
    if (UUID.test(t)) throw invalid(`${param}[${i}]: invalid tag '${raw}': a tag cannot be a UUID`, `${param}[${i}]`);
    if (!out.includes(t)) out.push(t);
  }
  return out;
}

/** `name[:tag]` as E2B parses a template reference; `param` names the field for errors. */
export function parseName(ref: string, param: string): { name: string; tag?: string } {
  const [name, tag, ...rest] = ref.trim().toLowerCase().split(':');
  if (!name || rest.length || tag === '') throw invalid(`${param}: "${ref}" must be a template name, optionally with one ":tag"`, param);
  if (tag !== undefined) cleanTags([tag], param);
  return { name, ...(tag !== undefined ? { tag } : {}) };
}

/**
 * E2B's template tags (migration 277): a tag of a template name points to one of its builds
 * (e2b_template_tags); a sandbox from `name:tag` starts from that build's Box image (`resolve`).
 */
export class TemplateTags {
  constructor(private db: Db) {}

  /** The tags point to this build (a ready one). */
  async tagBuild(orgId: string, name: string, tags: string[], buildID: string) {
    const at = new Date().toISOString();
    await this.db.transaction(async () => {
      for (const tag of tags)
        await this.db.run(
          `INSERT INTO e2b_template_tags (org_id, name, tag, build_id, created_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (org_id, name, tag) DO UPDATE SET build_id = excluded.build_id, created_at = excluded.created_at`,
          [orgId, name, tag, buildID, at],
        );
    });
  }

  /** The template name of a reference: a name (`name[:tag]`) with tags or builds here, or a template id of a build. */
  private async nameOf(orgId: string, ref: string, param: string): Promise<string> {
    const byId = await this.db.get<{ name: string | null }>(
      'SELECT name FROM e2b_template_builds WHERE org_id = ? AND template_id = ? AND name IS NOT NULL LIMIT 1',
      [orgId, ref],
    );
    if (byId?.name) return byId.name;
    const { name } = parseName(ref, param);
    const known = await this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM e2b_template_builds WHERE org_id = ? AND name = ?', [orgId, name]);
    if (!Number(known?.n)) throw notFound(`Template '${ref}' not found`, 'not_found', param);
    return name;
  }

  /** E2B's `GET /templates/{templateID}/tags`: the template's tags, oldest first. */
  async list(orgId: string, ref: string) {
    const name = await this.nameOf(orgId, ref, 'templateID');
    const rows = await this.db.all<{ tag: string; build_id: string; created_at: string }>(
      'SELECT tag, build_id, created_at FROM e2b_template_tags WHERE org_id = ? AND name = ? ORDER BY created_at, tag',
      [orgId, name],
    );
    return rows.map((r) => ({ tag: r.tag, buildID: r.build_id, createdAt: r.created_at }));
  }

  /** E2B's `POST /templates/tags`: the build `target` (`name:tag`, else its default tag) gets these tags too. */
  async assignTags(orgId: string, target: string, tags: string[]) {
    const { name, tag = DEFAULT_TAG } = parseName(target, 'target');
    const clean = cleanTags(tags, 'tags');
    if (!clean.length) throw invalid('tags: at least one tag is required', 'tags');
    const row = await this.db.get<{ build_id: string }>('SELECT build_id FROM e2b_template_tags WHERE org_id = ? AND name = ? AND tag = ?', [orgId, name, tag]);
    if (!row) throw notFound(`Template '${target}' with tag '${tag}' not found`, 'not_found', 'target');
    await this.tagBuild(orgId, name, clean, row.build_id);
    return { tags: clean, buildID: row.build_id };
  }

  /** E2B's `DELETE /templates/tags`: these tags of the template `name` no longer point anywhere (its default tag stays). */
  async removeTags(orgId: string, ref: string, tags: string[]) {
    const clean = cleanTags(tags, 'tags');
    if (!clean.length) throw invalid('tags: at least one tag is required', 'tags');
    if (clean.includes(DEFAULT_TAG)) throw invalid(`tags: cannot delete the '${DEFAULT_TAG}' tag`, 'tags');
    const { name, tag } = parseName(ref, 'name');
    if (tag !== undefined) throw invalid("name: the template name should not contain a tag, use the 'tags' field instead", 'name');
    await this.nameOf(orgId, name, 'name');
    await this.db.transaction(async () => {
      for (const t of clean) await this.db.run('DELETE FROM e2b_template_tags WHERE org_id = ? AND name = ? AND tag = ?', [orgId, name, t]);
    });
  }

  /**
   * The Box image of an E2B template reference at create: `name:tag` (or `name`, its default
   * tag) is the image of the build the tag points to; anything else is the image of that name
   * (`name:tag` as `name-tag`).
   */
  async resolve(orgId: string, ref: string): Promise<string> {
    const [name, tag = DEFAULT_TAG, ...rest] = ref.toLowerCase().split(':');
    if (name && !rest.length) {
      const row = await this.db.get<{ template_id: string }>(
        `SELECT b.template_id FROM e2b_template_tags t JOIN e2b_template_builds b ON b.build_id = t.build_id
         WHERE t.org_id = ? AND t.name = ? AND t.tag = ?`,
        [orgId, name, tag],
      );
      if (row) return row.template_id;
    }
    return ref.includes(':') ? ref.toLowerCase().replace(':', '-') : ref;
  }
}
