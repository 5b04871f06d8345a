import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import type { ExecEvent } from '@box/contract/exec';
import type { ExecPort } from '../ports.js';
import { rpcError } from '../wire-errors.js';
import { FIELDS, MARK, METADATA, parse, PRINTF, type Entry } from './entries.js';
import { resolvePath, targetOf } from './target.js';

const POLL_S = 0.2;
const END = '--end--';
const CREATE = 1;
const WRITE = 2;
const REMOVE = 3;
const CHMOD = 5;
/** The temp file of an upload in progress (the agent's, renamed over its path when complete): not the user's. */
const UPLOAD_TEMP = /\/\.box-upload-[^/]*$/;

/**
 * Prints the tree under $1 (to depth $2) every POLL_S seconds: envd's entries (filesystem.ts's
 * PRINTF), their file metadata (entries.ts's METADATA: only the entries that have any), then END.
 */
const SCRIPT = `[ -d "$1" ] || { echo "no such directory: $1" >&2; exit 3; }
root=$1; depth=$2
while :; do find "$root" -mindepth 1 -maxdepth "$depth" -printf '${PRINTF}'; set -- "$root" -mindepth 1 -maxdepth "$depth"; ${METADATA}; printf '%s\\0' '${END}'; sleep ${POLL_S}; done`;

type Snapshot = Map<string, Entry>;
const KEEPALIVE: Snapshot = new Map();
const stamp = (e: Entry) => `${e.modifiedTime.seconds}.${e.modifiedTime.nanos}/${e.size}`;
/** A change of mode or of metadata (xattrs): inotify's IN_ATTRIB, envd's CHMOD. */
const attrs = (e: Entry) => `${e.mode}/${JSON.stringify(Object.entries(e.metadata).sort(([a], [b]) => (a < b ? -1 : 1)))}`;

/**
 * Where one listing of the loop ends, read field by field: entries come FIELDS at a time until
 * MARK, then metadata records (path, count, count pairs) until END. Counting, never matching
 * END inside a record, so a path or a metadata value that reads END cannot cut a listing short.
 */
class Framer {
  private fields: string[] = [];
  private inMeta = false;
  private need = 0; // fields still belonging to the current metadata record
  private pendingCount = false;

  /** Takes one field; answers the listing's fields when this one was its END. */
  push(f: string): string[] | undefined {
    if (this.inMeta) {
      if (this.need > 0) {
        this.need--;
        this.fields.push(f);
        if (this.pendingCount) {
          this.pendingCount = false;
          const n = Number(f);
          this.need = Number.isInteger(n) && n >= 0 ? 2 * n : 0;
        }
        return undefined;
      }
      if (f === END) return this.done();
      this.fields.push(f); // a record's path, then its count
      this.need = 1;
      this.pendingCount = true;
      return undefined;
    }
    const atBoundary = this.fields.length % FIELDS === 0;
    if (atBoundary && f === END) return this.done(); // an agent without --xattrs printed no MARK's records
    if (atBoundary && f === MARK) this.inMeta = true;
    this.fields.push(f);
    return undefined;
  }

  private done() {
    const out = this.fields;
    this.fields = [];
    this.inMeta = false;
    this.need = 0;
    this.pendingCount = false;
    return out;
  }
}

/**
 * envd's WatchDir on Box's exec: a loop in the box lists the directory every 200 ms and
 * the differences become envd's events (create, write, remove, chmod; a rename shows as
 * remove + create; a new file with content as create + write, as inotify reports it). With
 * `includeEntry` (envd 0.6.3) each event of a path that still exists carries its entry, with
 * its file metadata (the `user.e2b.*` xattrs) as envd's entry has it; a file without metadata
 * is watched the same (its entry's metadata is empty), and a change of metadata alone is a
 * CHMOD (inotify's IN_ATTRIB, as envd reports it);
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
    const framer = new Framer();
    let stderr = '';
    const detach = session.attach((e: ExecEvent) => {
      if (e.type === 'stderr') stderr += Buffer.from(e.data, 'base64').toString();
      if (e.type === 'exit' || e.type === 'error') ended = stderr.trim() || 'the watch ended';
      if (e.type === 'stdout') {
        buf += Buffer.from(e.data, 'base64').toString();
        const parts = buf.split('\0');
        buf = parts.pop()!;
        for (const p of parts) {
          const fields = framer.push(p);
          if (!fields) continue;
          const snap: Snapshot = new Map();
          for (const e of parse(fields.map((f) => `${f}\0`).join(''))) if (!UPLOAD_TEMP.test(e.path)) snap.set(e.path, e);
          queue.push(snap);
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
          else if (attrs(was) !== attrs(v)) ev(p, CHMOD, v);
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
