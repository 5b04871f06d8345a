import { describe, expect, it } from 'vitest';
import { Fields, FrameDecoder, M, T, encodeFields, encodeFrame } from './protocol.js';

describe('frame codec', () => {
  it('decodes frames split at every byte boundary', () => {
    const payload = encodeFields([
      [T.ARGV, 'echo'],
      [T.ARGV, 'hé'],
      [T.TIMEOUT_MS, 1500],
      [T.TIME_NS, 1_700_000_000_123_456_789n],
      [T.STDIN, true],
      [T.BYTES, Buffer.from([0, 1, 2])],
      [T.CWD, undefined],
    ]);
    const wire = Buffer.concat([encodeFrame(M.EXEC, 0, 7, payload), encodeFrame(M.EOF, 2, 0xffffffff)]);
    for (let cut = 0; cut <= wire.length; cut++) {
      const d = new FrameDecoder();
      const frames = [...d.push(wire.subarray(0, cut)), ...d.push(wire.subarray(cut))];
      expect(frames.map((f) => [f.type, f.flags, f.stream])).toEqual([
        [M.EXEC, 0, 7],
        [M.EOF, 2, 0xffffffff],
      ]);
      const fl = new Fields(frames[0].payload);
      expect(fl.all(T.ARGV).map((b) => b.toString())).toEqual(['echo', 'hé']);
      expect(fl.int(T.TIMEOUT_MS)).toBe(1500);
      expect(fl.bigint(T.TIME_NS)).toBe(1_700_000_000_123_456_789n);
      expect(fl.int(T.STDIN)).toBe(1);
      expect(fl.buf(T.BYTES)).toEqual(Buffer.from([0, 1, 2]));
      expect(fl.str(T.CWD)).toBeUndefined();
    }
  });

  it('rejects bad magic and oversized frames', () => {
    expect(() => new FrameDecoder().push(Buffer.alloc(12))).toThrow(/magic/);
    const h = encodeFrame(M.DATA, 0, 1);
    h.writeUInt32BE(65537, 8);
    expect(() => new FrameDecoder().push(h)).toThrow(/oversized/);
    expect(() => encodeFrame(M.DATA, 0, 1, Buffer.alloc(65537))).toThrow(RangeError);
  });

  it('ignores a truncated trailing field', () => {
    const good = encodeFields([[T.PATH, '/a']]);
    const fl = new Fields(Buffer.concat([good, Buffer.from([T.MODE, 0, 0, 0, 8, 1])]));
    expect(fl.str(T.PATH)).toBe('/a');
    expect(fl.int(T.MODE)).toBeUndefined();
  });
});
