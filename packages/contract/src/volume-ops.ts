import { z } from 'zod';
import { VOLUME_PATH_MAX } from './volumes.js';

/** Volume file operations beyond upload/download: new folder, delete, rename (issue 15). */
const opPath = z.string().min(1, 'must not be empty').max(VOLUME_PATH_MAX, `must be at most ${VOLUME_PATH_MAX} characters`);

export const MakeDirectoryBody = z.strictObject({ path: opPath });
export const DeletePathQuery = z.object({ path: opPath, recursive: z.enum(['true', 'false']).optional() });
export const MovePathBody = z.strictObject({ from: opPath, to: opPath });
export const DeletedPath = z.object({ path: z.string(), deleted: z.literal(true) });

/** Upload temp files (file-write.ts) that listings hide: `.box-upload-<uuid>`. */
export const UPLOAD_TEMP_PREFIX = '.box-upload-';
