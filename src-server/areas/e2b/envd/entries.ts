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

/**
 * Appended to a script's find (same paths and depth as its PRINTF one): MARK, then the file
 * metadata of the entries that have any (envd 0.6.2: the `user.e2b.*` xattrs), as the guest
 * agent's `--xattrs` prints it (path, count, then keys and values). An agent without it prints nothing.
 */
export const MARK = '--metadata--';
export const METADATA = `printf '%s\\0' '${MARK}'; [ -x /.box/agent ] && find "$@" -exec /.box/agent --xattrs {} + 2>/dev/null; :`;

/** envd's entries of find's PRINTF output (whole entries only), with their metadata when METADATA followed. */
export function parse(out: Buffer | string): Entry[] {
  const f = out.toString().split('\0');
  const entries: Entry[] = [];
  let i = 0;
  for (; i + FIELDS <= f.length && f[i] !== MARK; i += FIELDS) {
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
  if (f[i] === MARK) {
    const byPath = new Map(entries.map((e) => [e.path, e]));
    for (i++; i + 1 < f.length;) {
      const entry = byPath.get(f[i]!);
      const n = Number(f[i + 1]);
      if (!Number.isInteger(n) || n < 0) break;
      for (let k = 0; k < n; k++) if (entry) entry.metadata[f[i + 2 + 2 * k]!] = f[i + 3 + 2 * k]!;
      i += 2 + 2 * n;
    }
  }
  return entries;
}
