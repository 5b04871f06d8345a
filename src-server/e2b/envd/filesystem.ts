import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import type { ExecPort } from '../ports.js';
import { METADATA, parse, PRINTF, type Entry } from './entries.js';
import { guestShell } from './guest-shell.js';
import { resolvePath, targetOf, type Target } from './target.js';
import { watchDir } from './watch.js';

const NOT_FOUND = 3;
const NOT_DIR = 4;
const EXISTS = 5;
const guard = `[ -e "$1" ] || [ -L "$1" ] || { echo "no such file or directory: $1" >&2; exit ${NOT_FOUND}; }`;

/** Scripts run in the box (GNU find and coreutils of the default image): each prints entries with PRINTF. */
const SCRIPTS = {
  stat: `${guard}; find "$1" -maxdepth 0 -printf '${PRINTF}'; set -- "$1" -maxdepth 0; ${METADATA}`,
  list: `${guard}; [ -d "$1" ] || { echo "path is not a directory: $1" >&2; exit ${NOT_DIR}; }; find "$1" -mindepth 1 -maxdepth "$2" -printf '${PRINTF}'; set -- "$1" -mindepth 1 -maxdepth "$2"; ${METADATA}`,
  makeDir: `if [ -e "$1" ]; then [ -d "$1" ] || { echo "path exists and is not a directory: $1" >&2; exit ${NOT_DIR}; }; echo "directory already exists: $1" >&2; exit ${EXISTS}; fi; mkdir -p -- "$1" && find "$1" -maxdepth 0 -printf '${PRINTF}'`,
  move: `${guard}; mkdir -p -- "$(dirname -- "$2")" && mv -T -- "$1" "$2" && find "$2" -maxdepth 0 -printf '${PRINTF}' && set -- "$2" -maxdepth 0 && ${METADATA}`,
  // envd removes with os.RemoveAll: a path that is not there is no error
  remove: `rm -rf -- "$1"`,
};

/**
 * envd's filesystem service on Box's exec: each call runs one short script of coreutils
 * in the box as the caller's user (so permissions hold as in the sandbox), and answers
 * envd's entries and codes (NotFound, AlreadyExists, InvalidArgument).
 */
export class EnvdFilesystem {
  constructor(private execs: ExecPort) {}

  private async run(t: Target, op: keyof typeof SCRIPTS, args: string[]): Promise<Entry[]> {
    const r = await guestShell(this.execs, t.box, t.user, SCRIPTS[op], args);
    if (r.code === NOT_FOUND) throw new ConnectError(r.stderr, Code.NotFound);
    if (r.code === NOT_DIR) throw new ConnectError(r.stderr, Code.InvalidArgument);
    if (r.code === EXISTS) throw new ConnectError(r.stderr, Code.AlreadyExists);
    if (r.code !== 0)
      throw new ConnectError(r.stderr || `${op} failed (exit ${r.code})`, /permission denied/i.test(r.stderr) ? Code.PermissionDenied : Code.Internal);
    return parse(r.stdout);
  }

  private one = async (t: Target, op: keyof typeof SCRIPTS, args: string[]) => {
    const [entry] = await this.run(t, op, args);
    if (!entry) throw new ConnectError(`${op}: the box answered no entry`, Code.Internal);
    return { entry };
  };

  impl() {
    const path = (p: string, ctx: HandlerContext) => resolvePath(p, targetOf(ctx).user);
    return {
      stat: (req: { path: string }, ctx: HandlerContext) => this.one(targetOf(ctx), 'stat', [path(req.path, ctx)]),
      listDir: async (req: { path: string; depth: number }, ctx: HandlerContext) => ({
        entries: (await this.run(targetOf(ctx), 'list', [path(req.path, ctx), String(Math.max(1, req.depth || 1))])).sort((a, b) => (a.path < b.path ? -1 : 1)),
      }),
      makeDir: (req: { path: string }, ctx: HandlerContext) => this.one(targetOf(ctx), 'makeDir', [path(req.path, ctx)]),
      move: (req: { source: string; destination: string }, ctx: HandlerContext) =>
        this.one(targetOf(ctx), 'move', [path(req.source, ctx), path(req.destination, ctx)]),
      watchDir: watchDir(this.execs),
      remove: async (req: { path: string }, ctx: HandlerContext) => {
        await this.run(targetOf(ctx), 'remove', [path(req.path, ctx)]);
        return {};
      },
    };
  }
}
