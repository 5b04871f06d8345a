/**
 * Copies of upstream bytes (read-slab.ts): a piece must keep its bytes until its write is
 * done, however much is copied after it, and slabs must come back for reuse once all their
 * pieces are done (else every download allocates again, which is what this file avoids).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keepCopy, slabWriter } from './read-slab.js';

describe('keepCopy', () => {
  it('keeps every piece intact while it is not done, across several slabs', () => {
    const volatile = Buffer.alloc(16 * 1024);
    const kept: { want: Buffer; got: ReturnType<typeof keepCopy> }[] = [];
    for (let i = 0; i < 300; i++) {
      const want = randomBytes(1 + ((i * 7919) % volatile.length));
      want.copy(volatile); // what a socket read into the shared buffer
      kept.push({ want, got: keepCopy(volatile.subarray(0, want.length)) });
      volatile.fill(0); // the next read overwrites it
    }
    for (const k of kept) expect(k.got.buf.equals(k.want)).toBe(true);
    expect(new Set(kept.map((k) => k.got.buf.buffer)).size).toBeGreaterThan(2);
    for (const k of kept) k.got.done();
  });

  it('reuses a slab once every piece cut from it is done, and never before', () => {
    const first = Array.from({ length: 80 }, () => keepCopy(randomBytes(16 * 1024)));
    const slab = first[0]!.buf.buffer;
    const ownSlab = first.filter((p) => p.buf.buffer === slab);
    const copyOf = ownSlab.map((p) => Buffer.from(p.buf));
    // All but one done: the slab stays out of reuse, however much is copied meanwhile.
    for (const p of ownSlab.slice(1)) p.done();
    const meanwhile = Array.from({ length: 200 }, () => keepCopy(randomBytes(16 * 1024)));
    expect(meanwhile.some((p) => p.buf.buffer === slab)).toBe(false);
    expect(ownSlab.every((p, i) => p.buf.equals(copyOf[i]!))).toBe(true);
    // The last piece done (twice: counted once): the slab is taken again.
    ownSlab[0]!.done();
    ownSlab[0]!.done();
    for (const p of [...first, ...meanwhile]) p.done();
    // Enough to go through every slab kept for reuse (at most 8 MiB of them).
    const later = Array.from({ length: 700 }, () => keepCopy(randomBytes(16 * 1024)));
    expect(later.some((p) => p.buf.buffer === slab)).toBe(true);
    for (const p of later) p.done();
  });

  it('gives a piece larger than a quarter slab its own buffer', () => {
    const big = randomBytes(600 * 1024);
    const k = keepCopy(big);
    expect(k.buf.equals(big)).toBe(true);
    expect(k.buf.buffer).not.toBe(big.buffer);
    expect(k.buf.byteLength).toBe(k.buf.buffer.byteLength);
  });
});

describe('slabWriter', () => {
  /** A writable that records what it was given (copies, taken when written), completes writes later, and answers `full` to each write. */
  const sink = (full = false) => {
    const writes: Buffer[] = [];
    const pending: (() => void)[] = [];
    let drain = () => {};
    return {
      writes,
      complete: () => pending.splice(0).forEach((cb) => cb()),
      drain: () => drain(),
      out: {
        on: (_e: 'drain', cb: () => void) => (drain = cb),
        write(b: Buffer, cb: () => void) {
          writes.push(Buffer.from(b));
          pending.push(cb);
          return !full;
        },
      },
    };
  };

  it('joins the pieces of one turn of the event loop into one write, copied from the volatile buffer', async () => {
    const s = sink();
    const w = slabWriter(s.out);
    const volatile = Buffer.alloc(16 * 1024);
    const sent: Buffer[] = [];
    for (let i = 0; i < 4; i++) {
      const piece = randomBytes(16 * 1024 - i);
      piece.copy(volatile);
      sent.push(piece);
      expect(w.write(volatile.subarray(0, piece.length))).toBe(true);
      volatile.fill(0);
    }
    expect(s.writes).toEqual([]); // nothing yet: written when the loop turns
    await new Promise((r) => setImmediate(r));
    expect(s.writes.length).toBe(1);
    expect(s.writes[0]!.equals(Buffer.concat(sent))).toBe(true);
    s.complete();
  });

  it('flush writes at once (before the answer ends); a later piece starts a new write', () => {
    const s = sink();
    const w = slabWriter(s.out);
    w.write(Buffer.from('head-'));
    w.flush();
    w.write(Buffer.from('tail'));
    w.flush();
    w.flush();
    expect(s.writes.map((b) => b.toString())).toEqual(['head-', 'tail']);
    s.complete();
  });

  it('answers false from a write the writable refused until its drain', () => {
    const s = sink(true);
    const w = slabWriter(s.out);
    expect(w.write(Buffer.from('x'))).toBe(true); // not written yet
    w.flush(); // written: the writable is full
    expect(w.write(Buffer.from('y'))).toBe(false);
    s.drain();
    expect(w.write(Buffer.from('z'))).toBe(true);
    s.complete();
  });
});
