import { posix } from 'node:path';
import { createContextKey, type HandlerContext } from '@connectrpc/connect';
import type { BoxRecord } from '../ports.js';
import type { SandboxRow } from '../sandboxes-repo.js';

/** The sandbox a request to the sandbox URL is for (resolved and authorized by the sandbox front). */
export interface Target {
  row: SandboxRow;
  box: BoxRecord;
  /**
   * The user the call acts as: the one named by envd's `Authorization: Basic <user:>` header
   * (or a file URL's `username`), else the sandbox's default (`defaultUser`).
   */
  user: string | undefined;
  /** Drops the request's connection, as a sandbox's envd does when the sandbox dies under it. */
  drop?: () => void;
}

/**
 * E2B's base and desktop templates run everything as `user` (home and working directory
 * /home/user, passwordless sudo), and envd 0.4+ uses it when the SDK names no user. Box's
 * shipped images have that account (the desktop one is built FROM the default), so their
 * sandboxes do the same: as root, @e2b/desktop's `open` started a browser that refuses to run
 * as root. A sandbox of another Box image keeps that image's own default (its USER, else
 * root). Box's own API keeps root.
 */
const E2B_USER_IMAGES = new Set(['debian', 'desktop']);

export function defaultUser(box: Pick<BoxRecord, 'image'>): string | undefined {
  return E2B_USER_IMAGES.has(box.image) ? 'user' : undefined;
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
  // cleaned as envd cleans it (filepath.Abs): `.`, `..` and trailing slashes resolved
  return posix.resolve(homeOf(user), path === '~' ? '.' : path.replace(/^~\//, ''));
}
