/** envd's file entries, as `find -printf` in the box prints them (filesystem.ts, watch.ts). */
import { posix } from 'node:path';

/** envd's EntryInfo (filesystem.proto) as the service answers it. */
export interface Entry {
  name: string;
  type: number;
  path: string;
  size: bigint;
  mode: number;
  permissions: string;
  owner: string;
  group: string;
  modifiedTime: { seconds: bigint; nanos: number };
  symlinkTarget?: string;
  metadata: Record<string, string>;
}

/** find's -printf of one entry: 9 NUL-terminated fields (type, size, mode, permissions, owner, group, mtime, symlink target, path). */
export const PRINTF = '%y\\0%s\\0%m\\0%M\\0%u\\0%g\\0%T@\\0%l\\0%p\\0';
export const FIELDS = 9;
const TYPES: Record<string, number> = { f: 1, d: 2, l: 3 };

/** envd's entries of find's PRINTF output (whole entries only). */
export function parse(out: Buffer | string): Entry[] {
  const f = out.toString().split('\0');
  const entries: Entry[] = [];
  for (let i = 0; i + FIELDS <= f.length; i += FIELDS) {
    const [y, size, mode, perms, owner, group, mtime, link, path] = f.slice(i, i + FIELDS) as string[];
    const [sec, frac = '0'] = mtime!.split('.');
    entries.push({
      name: path!.split('/').filter(Boolean).pop() ?? '/',
      type: TYPES[y!] ?? 0,
      path: path!,
      size: BigInt(size!),
      mode: parseInt(mode!, 8),
      permissions: perms!,
      owner: owner!,
      group: group!,
      modifiedTime: { seconds: BigInt(sec!), nanos: Number(frac.padEnd(9, '0').slice(0, 9)) },
      // envd answers the link's target as an absolute path
      symlinkTarget: y === 'l' ? posix.resolve(posix.dirname(path!), link!) : undefined,
      metadata: {},
    });
  }
  return entries;
}
