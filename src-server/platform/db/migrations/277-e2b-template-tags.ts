import type { Migration } from './migration.js';

/**
 * E2B's template tags (issue 33): a tag of a template name points to one of its builds
 * (`name:tag` at create is that build's Box image). A build keeps the tags it was requested
 * with (JSON); they point to it once it is ready, so a failed build takes no tag.
 */
export const m277: Migration = {
  id: 277,
  name: 'e2b-template-tags',
  sql: `
ALTER TABLE e2b_template_builds ADD COLUMN name TEXT;
ALTER TABLE e2b_template_builds ADD COLUMN tags TEXT;
CREATE TABLE e2b_template_tags (
  org_id TEXT NOT NULL,
  name TEXT NOT NULL,
  tag TEXT NOT NULL,
  build_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (org_id, name, tag)
);
CREATE INDEX e2b_template_tags_build ON e2b_template_tags (build_id);
`,
};
