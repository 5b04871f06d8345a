// File operations over the agent channel: streamed upload/download under credit.
import type { Readable } from 'node:stream';
import { AgentError } from './agent-errors.js';
import type { StreamConn } from './agent-exec.js';
import { CreditReadable, SendCredit, sendWithCredit } from './flow.js';
import { CH, Fields, M, T, encodeFields, type Frame } from './protocol.js';

export interface StreamHandler {
  onFrame(f: Frame): void;
  fail(err: AgentError): void;
}

export interface Channel extends StreamConn {
  /** register a handler for a fresh stream id */
  allocate(handler: StreamHandler): number;
  /** one request; `accept` returns a value to finish, undefined to keep waiting */
  request<R>(type: number, payload: Buffer, accept: (f: Frame) => R | undefined): Promise<R>;
}

export interface FileEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  /** permission bits (mode & 07777) */
  mode: number;
  /** seconds since the epoch, fractional */
  mtime: number;
  /** symlinks only */
  target?: string;
}

export interface WriteFileOptions {
  mode?: number;
  createParents?: boolean;
  /**
   * Default true: answered once the file and its directory are synced (an acknowledged
   * upload survives the VM being killed). False: no syncs (~15-80 ms less each under TCG),
   * for files the host writes again on every start (identity, trust, guest set-up).
   */
  durable?: boolean;
  /**
   * The file is truncated and written where it is instead of a temp file renamed over it
   * (agents before it ignore this): far less guest kernel work, which is what the first
   * writes after a restore cost under TCG (a fork's identity: ~55 ms for the first file).
   * Readers may see it empty or partial meanwhile, and a failed upload leaves it so: for
   * small files nothing in the guest reads while they are written.
   */
  inPlace?: boolean;
  /** Written as this user of the box (its permissions apply, what is created is theirs); default the agent's root. */
  user?: string;
  /**
   * With `user`: written as root, and the file and the parent directories the write creates
   * are given to `user` (E2B envd's upload: any directory, the result the user's). Agents
   * before it ignore the field and write with the user's permissions.
   */
  chownToUser?: boolean;
  /** A regular file already at the path keeps its mode (`mode` only for a new file), as envd's upload. Agents before it ignore it. */
  keepMode?: boolean;
  /**
   * Extended attributes set on the new file (name to value, e.g. `user.e2b.author`); the answer's
   * `xattrsSet` says how many the file system kept (none on one without user xattrs, e.g. a
   * tmpfs before Linux 6.6). Agents before it ignore them and do not answer `xattrsSet`.
   */
  xattrs?: Record<string, string>;
}

export type FileSource = Readable | Buffer | AsyncIterable<Uint8Array | string>;

export function parseEntry(fl: Fields): FileEntry {
  const mtimeNs = fl.bigint(T.MTIME_NS) ?? 0n;
  const e: FileEntry = {
    name: fl.str(T.NAME) ?? '',
    type: (fl.str(T.TYPE) ?? 'other') as FileEntry['type'],
    size: fl.int(T.SIZE) ?? 0,
    mode: fl.int(T.MODE) ?? 0,
    mtime: Number(mtimeNs / 1000n) / 1e6,
  };
  const target = fl.str(T.TARGET);
  if (target !== undefined) e.target = target;
  return e;
}

function errorOf(f: Frame): AgentError {
  const fl = new Fields(f.payload);
  return AgentError.fromWire(fl.str(T.CODE), fl.str(T.MESSAGE), fl.int(T.ERRNO));
}

function deferred<V>() {
  let resolve!: (v: V) => void;
  let reject!: (e: AgentError) => void;
  const promise = new Promise<V>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

async function* chunksOf(source: FileSource): AsyncIterable<Buffer> {
  if (Buffer.isBuffer(source)) {
    yield source;
    return;
  }
  for await (const c of source as AsyncIterable<Uint8Array | string>)
    yield typeof c === 'string' ? Buffer.from(c) : Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.length);
}

/** Upload to a temp file next to `path`, renamed over it only when complete. */
export async function writeFile(ch: Channel, path: string, opts: WriteFileOptions, source: FileSource): Promise<{ sizeBytes: number; xattrsSet?: number }> {
  const credit = new SendCredit();
  const ready = deferred<void>();
  const done = deferred<{ sizeBytes: number; xattrsSet?: number }>();
  const fail = (err: AgentError) => {
    credit.fail(err);
    ready.reject(err);
    done.reject(err);
  };
  const id = ch.allocate({
    onFrame(f) {
      if (f.type === M.OK) {
        credit.add(new Fields(f.payload).int(T.WINDOW) ?? 0);
        ready.resolve();
      } else if (f.type === M.WINDOW) {
        credit.add(new Fields(f.payload).int(T.WINDOW) ?? 0);
      } else if (f.type === M.WRITE_DONE) {
        ch.release(id);
        const fl = new Fields(f.payload);
        const set = fl.int(T.APPLIED); // how many of opts.xattrs the file system kept (agents before it: not said)
        done.resolve({ sizeBytes: fl.int(T.SIZE) ?? 0, ...(set !== undefined ? { xattrsSet: set } : {}) });
      } else if (f.type === M.ERROR) {
        ch.release(id);
        fail(errorOf(f));
      }
    },
    fail,
  });
  const fields = encodeFields([
    [T.PATH, path],
    [T.MODE, opts.mode ?? 0o644],
    [T.PARENTS, opts.createParents ?? true],
    ...(opts.durable === false ? [[T.DURABLE, false] as [number, boolean]] : []),
    ...(opts.inPlace ? [[T.IN_PLACE, true] as [number, boolean]] : []),
    ...(opts.user ? [[T.USER, opts.user] as [number, string]] : []),
    ...(opts.user && opts.chownToUser ? [[T.OWNER, true] as [number, boolean]] : []),
    ...(opts.keepMode ? [[T.KEEP_MODE, true] as [number, boolean]] : []),
    ...Object.entries(opts.xattrs ?? {}).map(([k, v]) => [T.XATTR, `${k}=${v}`] as [number, string]),
  ]);
  ch.sendControl(M.FILE_WRITE, 0, id, fields);
  try {
    await ready.promise;
    for await (const chunk of chunksOf(source)) await sendWithCredit(credit, chunk, (c) => ch.sendData(id, CH.IN, c));
    ch.sendControl(M.EOF, CH.IN, id);
  } catch (e) {
    if (credit.failed) throw credit.failed;
    ch.sendControl(M.RESET, 0, id); // the agent removes its temp file
    ch.release(id);
    throw e;
  }
  return done.promise;
}

export function readFile(ch: Channel, path: string, window: number, user?: string): Promise<{ mode: number; size: number | null; stream: Readable }> {
  return new Promise((resolve, reject) => {
    let stream: CreditReadable | undefined;
    const abort = () => {
      ch.sendControl(M.RESET, 0, id);
      ch.release(id);
    };
    const id = ch.allocate({
      onFrame(f) {
        if (f.type === M.FILE_INFO) {
          const fl = new Fields(f.payload);
          const grant = (n: number) => ch.sendControl(M.WINDOW, CH.IN, id, encodeFields([[T.WINDOW, n]]));
          stream = new CreditReadable(grant, window, abort);
          resolve({ mode: fl.int(T.MODE) ?? 0, size: fl.int(T.SIZE) ?? null, stream });
        } else if (f.type === M.DATA) {
          stream?.receive(f.payload);
        } else if (f.type === M.EOF) {
          ch.release(id);
          stream?.finish();
        } else if (f.type === M.ERROR) {
          ch.release(id);
          this.fail(errorOf(f));
        }
      },
      fail(err) {
        if (stream) stream.destroy(err);
        else reject(err);
      },
    });
    ch.sendControl(M.FILE_READ, 0, id, encodeFields([[T.PATH, path], [T.WINDOW, window], ...(user ? [[T.USER, user] as [number, string]] : [])]));
  });
}

export function stat(ch: Channel, path: string, follow: boolean): Promise<FileEntry> {
  const payload = encodeFields([
    [T.PATH, path],
    [T.FOLLOW, follow],
  ]);
  return ch.request(M.STAT, payload, (f) => (f.type === M.STAT_REPLY ? parseEntry(new Fields(f.payload)) : undefined));
}

/**
 * A directory's entries as the agent sends them: sorted by name (byte order), one batch per
 * LIST_ENTRIES frame (~48 KiB), so a caller can pass a listing of any size on without
 * holding it. An error before the first batch (no such directory) is the first `next()`'s.
 */
export async function* listDirBatches(ch: Channel, path: string): AsyncGenerator<FileEntry[]> {
  const queue: FileEntry[][] = [];
  let wake: (() => void) | undefined;
  let end: { error?: unknown } | undefined;
  void ch
    .request(M.LIST, encodeFields([[T.PATH, path]]), (f) => {
      if (f.type === M.LIST_ENTRIES) {
        queue.push(new Fields(f.payload).all(T.ENTRY).map((e) => parseEntry(new Fields(e))));
        wake?.();
        return undefined;
      }
      return f.type === M.OK ? true : undefined;
    })
    .then(
      () => (end = {}),
      (error: unknown) => (end = { error }),
    )
    .finally(() => wake?.());
  for (;;) {
    const batch = queue.shift();
    if (batch) yield batch;
    else if (end?.error) throw end.error;
    else if (end) return;
    else await new Promise<void>((r) => (wake = r));
  }
}

export async function mkdir(ch: Channel, path: string, mode = 0o755): Promise<void> {
  await ch.request(
    M.MKDIR,
    encodeFields([
      [T.PATH, path],
      [T.MODE, mode],
    ]),
    (f) => (f.type === M.OK ? true : undefined),
  );
}
