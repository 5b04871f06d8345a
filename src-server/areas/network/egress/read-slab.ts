import net from 'node:net';
import tls from 'node:tls';

/**
 * Upstream bytes without a new ArrayBuffer per read, written on in few large writes. Node
 * gives every socket read (a TLS socket: every 16 KiB record) its own backing store,
 * counted by V8 as external memory; a download through the proxy allocated ~300 MB/s of
 * them, and V8 answered that "external memory pressure" with major GCs over and over
 * (~17 % of the proxy's CPU in `perf`). Here upstream sockets read into one shared buffer
 * (`onread`), their `data` listeners see a volatile view of it, and what must outlive the
 * event is copied into reused slabs (`keepCopy`). `slabWriter` also joins the pieces that arrive in one turn of the event
 * loop (one TCP read holds up to four 16 KiB TLS records) into one write: a download's
 * proxy CPU went 3.5 → 2.3 ms/MB with the slabs, → 1.8 with the joined writes.
 */

/** Where every upstream socket reads: a view of it is valid only during its `data` event. */
const SHARED = Buffer.allocUnsafeSlow(64 * 1024);

/** A socket reading into the shared buffer: `data` listeners get views they must copy to keep. */
export function connectShared(opts: net.NetConnectOpts | tls.ConnectionOptions, secure: boolean): net.Socket {
  const onread = {
    buffer: SHARED,
    callback: (n: number) => {
      s.emit('data', SHARED.subarray(0, n));
      return true;
    },
  };
  // tls.connect takes `onread` like net.connect (Node ≥ 15), though @types/node does not say so.
  const s: net.Socket = secure
    ? tls.connect({ ...(opts as tls.ConnectionOptions), onread } as tls.ConnectionOptions)
    : net.connect({ ...(opts as net.NetConnectOpts), onread });
  return s;
}

const SLAB = 1 << 20;
/** Slabs kept for reuse once all their pieces were written. */
const MAX_FREE = 8;

interface Slab {
  buf: Buffer;
  used: number;
  refs: number;
}
const free: Slab[] = [];
let cur: Slab | undefined;

/** Back to the free list: a slab no longer cut from whose pieces are all done. */
const retire = (s: Slab) => {
  if (s.refs === 0 && s !== cur && free.length < MAX_FREE) free.push(s);
};

/**
 * A copy of `c` that stays valid until `done` is called (after the write that carried it
 * completed). Pieces come from 1 MiB slabs that are reused once every piece cut from them
 * is done; a piece whose `done` never comes only keeps its slab out of reuse (the GC takes it).
 */
export function keepCopy(c: Buffer): { buf: Buffer; done: () => void } {
  if (c.length > SLAB / 4) return { buf: Buffer.from(c), done: () => {} };
  if (!cur || cur.used + c.length > SLAB) {
    const old = cur;
    cur = free.pop() ?? { buf: Buffer.allocUnsafeSlow(SLAB), used: 0, refs: 0 };
    cur.used = 0;
    if (old) retire(old);
  }
  const slab = cur;
  const buf = slab.buf.subarray(slab.used, slab.used + c.length);
  c.copy(buf);
  slab.used += c.length;
  slab.refs++;
  let once = false;
  return {
    buf,
    done: () => {
      if (once) return;
      once = true;
      slab.refs--;
      retire(slab);
    },
  };
}

/** The part of a writable (an HTTP/1.1 or HTTP/2 response) `slabWriter` uses. */
interface Out {
  write(b: Buffer, cb: (e?: Error | null) => void): boolean;
  on(event: 'drain', cb: () => void): unknown;
}

/** Bytes written at most once per turn of the event loop, and at least this often. */
const JOIN_MAX = 256 * 1024;

/**
 * Writes copies of volatile pieces to `out`: the pieces that follow each other in a slab
 * (those of one read burst) go as one write, at the latest when the event loop turns
 * (`setImmediate`: no added wait for a stream of events), or on `flush` (call it before
 * ending `out`). `write` answers false from the moment a write of `out` did until its
 * 'drain' (an HTTP/2 response has no `writableNeedDrain` to ask).
 */
export function slabWriter(out: Out) {
  let pend: { buf: Buffer; dones: (() => void)[] } | undefined;
  let timer: NodeJS.Immediate | undefined;
  let blocked = false;
  out.on('drain', () => (blocked = false));
  const flush = () => {
    if (timer) clearImmediate(timer);
    timer = undefined;
    if (!pend) return;
    const { buf, dones } = pend;
    pend = undefined;
    if (
      !out.write(buf, () => {
        for (const d of dones) d();
      })
    )
      blocked = true;
  };
  return {
    write(c: Buffer): boolean {
      const k = keepCopy(c);
      const p = pend;
      if (p && k.buf.buffer === p.buf.buffer && k.buf.byteOffset === p.buf.byteOffset + p.buf.length && p.buf.length < JOIN_MAX) {
        p.buf = Buffer.from(p.buf.buffer, p.buf.byteOffset, p.buf.length + k.buf.length);
        p.dones.push(k.done);
      } else {
        flush();
        pend = { buf: k.buf, dones: [k.done] };
        timer = setImmediate(flush);
      }
      return !blocked;
    },
    flush,
  };
}
