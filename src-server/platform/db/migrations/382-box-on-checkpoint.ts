import type { Migration } from './migration.js';

/**
 * The checkpoint a box stands on (issue 38: the lineage tree marks it, and after a restore in
 * place only the service knows it). Existing boxes get what could be told before: their own
 * ready checkpoint of their current generation, else the checkpoint they were started from.
 */
export const m382: Migration = {
  id: 382,
  name: 'box-on-checkpoint',
  sql: `
ALTER TABLE boxes ADD COLUMN on_checkpoint_id TEXT;
UPDATE boxes SET on_checkpoint_id = COALESCE(
  (SELECT c.id FROM checkpoints c
     WHERE c.box_id = boxes.id AND c.status = 'ready' AND boxes.checkpoint_generation > 0 AND c.generation = boxes.checkpoint_generation
     ORDER BY c.created_at DESC LIMIT 1),
  (SELECT f.checkpoint_id FROM box_forks f JOIN checkpoints c2 ON c2.id = f.checkpoint_id WHERE f.box_id = boxes.id));
`,
};
