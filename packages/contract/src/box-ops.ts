import { z } from 'zod';
import { idSchema } from './common.js';

/*
 * Box operations beyond the spec (issue 29): restore a box in place to one of its
 * checkpoints, and the file operations of the box file browser (new folder, delete, rename).
 * No node imports: the renderer reads these types.
 */

/** POST /v1/boxes/{box_id}/restore: the checkpoint (of this box) it goes back to. */
export const RestoreBody = z.strictObject({ checkpoint_id: idSchema('checkpoint', 'checkpoint_id') });

/**
 * A path inside a box for a file operation: absolute, no NUL, no `..` segment (refused,
 * never resolved), at most 4096 characters, and not the root itself.
 */
const boxPath = z
  .string()
  .min(2, 'must name something below "/"')
  .max(4096, 'must be at most 4096 characters')
  .startsWith('/', 'must be an absolute path inside the box')
  .refine((s) => !s.includes('\0'), 'must not contain NUL bytes')
  .refine((s) => !s.split('/').includes('..'), 'must not contain a ".." segment')
  .refine((s) => s.split('/').some((seg) => seg !== '' && seg !== '.'), 'must name something below "/"');

export const BoxMkdirBody = z.strictObject({ path: boxPath });
export const BoxDeletePathQuery = z.object({ path: boxPath, recursive: z.enum(['true', 'false']).optional() });
export const BoxMovePathBody = z.strictObject({ from: boxPath, to: boxPath });
