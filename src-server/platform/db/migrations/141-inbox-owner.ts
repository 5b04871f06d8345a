import type { Migration } from './migration.js';

/**
 * Each user's own webhook inbox (issue 29: the playground made a new inbox on every visit).
 * `owner` is set on the one inbox POST /v1/inbox/mine gives a user (the user of the API
 * key, else the key itself); other inboxes (POST /v1/inbox, older ones) have none and stay listed.
 */
export const m141: Migration = {
  id: 141,
  name: 'inbox-owner',
  sql: `
ALTER TABLE inboxes ADD COLUMN owner TEXT;
CREATE INDEX inboxes_owner ON inboxes (org_id, owner, seq);
`,
};
