import { badRequest } from '../http/errors.js';

/**
 * Splits a volume path into its segments (spec, directory listing): relative to the
 * volume root, a leading slash is ignored, empty and `.` segments fold away, and a `..`
 * segment is refused outright, never resolved. `[]` names the root.
 */
export function volumeSegments(path: string | undefined, param = 'path'): string[] {
  if (path === undefined) return [];
  if (path.includes('\0')) throw badRequest(`Invalid ${param}: it must not contain a NUL character.`, param);
  const segs = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segs.includes('..')) throw badRequest(`Invalid ${param}: a ".." segment is not allowed.`, param);
  for (const s of segs) {
    if (Buffer.byteLength(s, 'utf8') > 255) throw badRequest(`Invalid ${param}: each path segment must be at most 255 bytes.`, param);
  }
  return segs;
}
