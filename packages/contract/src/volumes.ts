import { z } from 'zod';
import { idSchema } from './common.js';

/** Volume names: unique per organization among live volumes (spec, Volume). */
const VOLUME_NAME = /^[A-Za-z0-9._-]+$/;
export const VOLUME_PATH_MAX = 4096;

export const CreateVolumeBody = z.strictObject({
  name: z.string().min(1).max(128).regex(VOLUME_NAME, 'may contain only letters, digits, ".", "-" and "_"'),
});
export type CreateVolumeBody = z.infer<typeof CreateVolumeBody>;

export const VolumeIdParams = z.object({ volume_id: idSchema('volume', 'volume_id') });

export const Volume = z.object({
  volume_id: z.string(),
  name: z.string(),
  backend: z.string(),
  status: z.enum(['ready', 'deleted']),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Volume = z.infer<typeof Volume>;

/** Relative to the volume root; a leading slash is ignored; `..` segments are refused by the service. */
const volumePath = z.string().max(VOLUME_PATH_MAX, `must be at most ${VOLUME_PATH_MAX} characters`);

export const DirectoryQuery = z.object({ path: volumePath.optional() });
export const PathQuery = z.object({ path: volumePath.min(1, 'must not be empty') });

export const VolumeEntry = z.object({
  name: z.string(),
  type: z.enum(['file', 'directory', 'symlink', 'other']),
  size: z.number().int().min(0),
  modified_time: z.number(),
  mode: z.number().int().min(0).max(4095),
});
export type VolumeEntry = z.infer<typeof VolumeEntry>;

export const DirectoryListing = z.object({ entries: z.array(VolumeEntry) });
export type DirectoryListing = z.infer<typeof DirectoryListing>;

/**
 * A file mode as octal text for writes. Setuid, setgid and sticky bits are refused: the
 * service may run as root, and boxes see host modes through 9p (security_model=none).
 */
export const noSpecialModeBits = [
  (m: string) => (parseInt(m, 8) & 0o7000) === 0,
  'setuid, setgid and sticky bits (04000, 02000, 01000) are not allowed; use a mode up to 0777',
] as const;
const octalFileMode = z
  .string()
  .regex(/^0?[0-7]{1,4}$/, 'must be an octal mode such as 0644')
  .refine(...noSpecialModeBits);

export const FileWriteQuery = z.object({
  path: volumePath.min(1, 'must not be empty'),
  mode: octalFileMode.optional(),
  create_parents: z.enum(['true', 'false']).optional(),
});
export const FileReadQuery = z.object({ path: volumePath.min(1, 'must not be empty') });

export const FileWriteResult = z.object({ size_bytes: z.number().int().min(0) });
export type FileWriteResult = z.infer<typeof FileWriteResult>;

/** Response header carrying the file's decimal POSIX mode (spec, GET files). */
export const FILE_MODE_HEADER = 'X-Box-File-Mode';
