import type { Migration } from './migration.js';

/**
 * E2B features mapped onto Box's (issue 33): the HTTP policy made for a sandbox's network
 * rules, whether a pause keeps memory (`lifecycle.keepMemory`), whether traffic resumes a
 * paused sandbox (`lifecycle.autoResume`), the timeout it resumes with, and whether its
 * current pause kept only the filesystem (its resume then reboots).
 */
export const m272: Migration = {
  id: 272,
  name: 'e2b-features',
  sql: `
ALTER TABLE e2b_sandboxes ADD COLUMN policy_id TEXT;
ALTER TABLE e2b_sandboxes ADD COLUMN keep_memory INTEGER NOT NULL DEFAULT 1;
ALTER TABLE e2b_sandboxes ADD COLUMN auto_resume INTEGER NOT NULL DEFAULT 0;
ALTER TABLE e2b_sandboxes ADD COLUMN timeout_s INTEGER NOT NULL DEFAULT 300;
ALTER TABLE e2b_sandboxes ADD COLUMN cold_resume INTEGER NOT NULL DEFAULT 0;
`,
};
