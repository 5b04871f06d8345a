import { z } from 'zod';
import { noSpecialModeBits } from './volumes.js';

const noNul = (s: string) => !s.includes('\0');
const absolute = z.string().startsWith('/', 'must be an absolute path inside the box').refine(noNul, 'must not contain NUL bytes');

/** Spec, PUT /v1/boxes/{box_id}/files: the path's stated bound is 10..511 (characters). */
export const PutFileQuery = z.object({
  path: absolute.min(10, 'must be at least 10 characters (spec bound 10..511)').max(511, 'must be at most 511 characters'),
  mode: z
    .string()
    .regex(/^0?[0-7]{3,4}$/, 'must be an octal mode such as 0644')
    .refine(...noSpecialModeBits)
    .optional()
    .default('0644')
    .transform((m) => parseInt(m, 8)),
  create_parents: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
});

/** Spec, GET /v1/boxes/{box_id}/files: path minimum length 1. */
export const GetFileQuery = z.object({ path: absolute.min(1).max(4096) });
export const ListDirQuery = z.object({ path: absolute.max(4096).optional().default('/') });
