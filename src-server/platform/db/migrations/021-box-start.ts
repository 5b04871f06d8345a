import type { Migration } from './migration.js';

/**
 * Warm templates (issue 9): how the box's latest start went, shown in the API and UI as
 * `last_start` ({ operation, ms, from }: e.g. create in 85 ms from the warm pool), JSON.
 */
export const m021: Migration = {
  id: 21,
  name: 'box-start',
  sql: `ALTER TABLE boxes ADD COLUMN last_start TEXT;`,
};
