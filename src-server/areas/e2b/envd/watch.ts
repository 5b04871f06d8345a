import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import type { ExecEvent } from '@box/contract/exec';
import type { ExecPort } from '../ports.js';
import { rpcError } from '../wire-errors.js';
import { FIELDS, parse, PRINTF, type Entry } from './entries.js';
import { resolvePath, targetOf } from './target.js';

const POLL_S = 0.2;
const END = '--end--';
const CREATE = 1;
const WRITE = 2;
const REMOVE = 3;
const CHMOD = 5;
/** The temp file of an upload in progress (the agent's, renamed over its path when complete): not the user's. */
const UPLOAD_TEMP = /\/\.box-upload-[^/]*$/;

/** Prints the tree under $1 (to depth $2) every POLL_S seconds: envd's entries (filesystem.ts's PRINTF), then END. */
const SCRIPT = `[ -d "$1" ] || { echo "no such directory: $1" >&2; exit 3; }
while :; do find "$1" -mindepth 1 -maxdepth "$2" -printf '${PRINTF}'; printf '%s\\0' '${END}'; sleep ${POLL_S}; done`;

type Snapshot = Map<string, Entry>;
const KEEPALIVE: Snapshot = new Map();
const stamp = (e: Entry) => `${e.modifiedTime.seconds}.${e.modifiedTime.nanos}/${e.size}`;

/**
 * envd's WatchDir on Box's exec: a loop in the box lists the directory every 200 ms and
 * the differences become envd's events (create, write, remove, chmod; a rename shows as
 * remove + create; a new file with content as create + write, as inotify reports it). With
 * `includeEntry` (envd 0.6.3) each event of a path that still exists carries its entry;
 * `allowNetworkMounts` (0.6.4) needs nothing: a listing works on any mount. Box's guest
 * agent has no inotify channel; the loop ends with the stream.
 */
export function watchDir(execs: ExecPort) {
  return async function* (req: { path: string; recursive: boolean; includeEntry?: boolean; allowNetworkMounts?: boolean }, ctx: HandlerContext) {
    const t = targetOf(ctx);
    const root = resolvePath(req.path, t.user).replace(/\/+$/, '') || '/';
    const session = await execs
      .start(t.box, { command: ['/bin/sh', '-c', SCRIPT, 'sh', root, req.recursive ? '64' : '1'], user: t.user })
      .catch((e: unknown) => {
        throw rpcError(e);
      });
    const queue: Snapshot[] = [];
    let wake: (() => void) | undefined;
    let ended: string | undefined;
    let buf = '';
    let fields: string[] = [];
    let stderr = '';
    const detach = session.attach((e: ExecEvent) => {
      if (e.type === 'stderr') stderr += Buffer.from(e.data, 'base64').toString();
      if (e.type === 'exit' || e.type === 'error') ended = stderr.trim() || 'the watch ended';
      if (e.type === 'stdout') {
        buf += Buffer.from(e.data, 'base64').toString();
        const parts = buf.split('\0');
        buf = parts.pop()!;
        for (const p of parts) {
          if (p === END && fields.length % FIELDS === 0) {
            const snap: Snapshot = new Map();
            for (const e of parse(fields.map((f) => `${f}\0`).join(''))) if (!UPLOAD_TEMP.test(e.path)) snap.set(e.path, e);
            queue.push(snap);
            fields = [];
          } else fields.push(p);
        }
      }
      wake?.();
    });
    const stop = () => {
      if (session.status === 'running') {
        session.cancelled = true;
        session.guest.signal('SIGKILL');
      }
    };
    ctx.signal.addEventListener('abort', stop);
    const every = Number(ctx.requestHeader.get('keepalive-ping-interval'));
    let lastSent = Date.now();
    const next = async (): Promise<Snapshot | undefined> => {
      while (!queue.length && ended === undefined) {
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 1000).unref();
        });
        if (every > 0 && Date.now() - lastSent > every * 1000) return KEEPALIVE;
      }
      return queue.shift();
    };
    const rel = (p: string) => p.slice(root.length + 1);
    try {
      let prev = await next();
      if (!prev) throw new ConnectError(ended ?? 'the watch did not start', /no such/.test(ended ?? '') ? Code.NotFound : Code.Internal);
      yield { event: { case: 'start', value: {} } };
      for (;;) {
        const snap = await next();
        if (!snap) return;
        if (snap === KEEPALIVE) {
          lastSent = Date.now();
          yield { event: { case: 'keepalive', value: {} } };
          continue;
        }
        const out: Array<{ name: string; type: number; entry?: Entry }> = [];
        const ev = (p: string, type: number, e?: Entry) => out.push({ name: rel(p), type, ...(req.includeEntry && e ? { entry: e } : {}) });
        for (const [p, v] of snap) {
          const was = prev.get(p);
          if (!was) {
            ev(p, CREATE, v);
            if (v.type === 1 && v.size > 0n) ev(p, WRITE, v);
          } else if (stamp(was) !== stamp(v)) ev(p, WRITE, v);
          else if (was.mode !== v.mode) ev(p, CHMOD, v);
        }
        for (const p of prev.keys()) if (!snap.has(p)) ev(p, REMOVE);
        prev = snap;
        for (const ev of out) {
          lastSent = Date.now();
          yield { event: { case: 'filesystem', value: ev } };
        }
      }
    } finally {
      ctx.signal.removeEventListener('abort', stop);
      detach();
      stop();
    }
  };
}
