import { createContextKey, type HandlerContext } from '@connectrpc/connect';
import type { BoxRecord } from '../ports.js';
import type { SandboxRow } from '../sandboxes-repo.js';

/** The sandbox a request to the sandbox URL is for (resolved and authorized by the sandbox front). */
export interface Target {
  row: SandboxRow;
  box: BoxRecord;
  /** The user named by envd's `Authorization: Basic <user:>` header, if any. */
  user: string | undefined;
}

export const TARGET = createContextKey<Target | undefined>(undefined, { description: 'e2b sandbox' });

export function targetOf(ctx: HandlerContext): Target {
  const t = ctx.values.get(TARGET);
  if (!t) throw new Error('e2b: envd call without a resolved sandbox');
  return t;
}

/** The user of envd's Basic authorization header (`user:` base64), as E2B's SDK sends it. */
export function basicUser(header: string | null | undefined): string | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!m) return undefined;
  const user = Buffer.from(m[1]!, 'base64').toString('utf8').split(':')[0];
  return user || undefined;
}

/** Home of a user in the guest: relative paths are resolved against it, as envd does. */
const homeOf = (user: string | undefined) => (!user || user === 'root' ? '/root' : `/home/${user}`);

export function resolvePath(path: string, user: string | undefined): string {
  if (path.startsWith('/')) return path;
  if (path === '~' || path === '') return homeOf(user);
  return `${homeOf(user)}/${path.replace(/^~\//, '')}`;
}
