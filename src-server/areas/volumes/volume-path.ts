import { invalid } from '../../kernel/domain-errors.js';

/**
 * Deepest volume path a write may name. The spec bounds a path at 4096 characters (up
 * to 2048 levels); reads resolve such a path in one realpath, but a write walks it level
 * by level and may create every missing level, so writes stop at a depth no real tree needs.
 */
export const MAX_PATH_DEPTH = 256;

/** 400 when a path to write is deeper than MAX_PATH_DEPTH (said in the error). */
export function checkWriteDepth(segs: string[], param = 'path'): void {
  if (segs.length > MAX_PATH_DEPTH) {
    throw invalid(`Invalid ${param}: it has ${segs.length} levels; files are written at most ${MAX_PATH_DEPTH} levels deep.`, param, 'path_too_deep');
  }
}

/**
 * Splits a volume path into its segments (spec, directory listing): relative to the
 * volume root, a leading slash is ignored, empty and `.` segments fold away, and a `..`
 * segment is refused outright, never resolved. `[]` names the root.
 */
export function volumeSegments(path: string | undefined, param = 'path'): string[] {
  if (path === undefined) return [];
  if (path.includes('\0')) throw invalid(`Invalid ${param}: it must not contain a NUL character.`, param);
  const segs = path.split('/').filter((s) => s !== '' && s !== '.');
  if (segs.includes('..')) throw invalid(`Invalid ${param}: a ".." segment is not allowed.`, param);
  for (const s of segs) {
    if (Buffer.byteLength(s, 'utf8') > 255) throw invalid(`Invalid ${param}: each path segment must be at most 255 bytes.`, param);
  }
  return segs;
}
