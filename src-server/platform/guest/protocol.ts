// Wire format of the guest agent channel; the normative text is resources/guest/PROTOCOL.md.

const MAGIC0 = 0xb0;
const MAGIC1 = 0xc5;
export const HDR_LEN = 12;
export const MAX_PAYLOAD = 65536;
/** The protocol version this host speaks (the agent reports its own in HELLO). */
// ts-unused-exports:disable-next-line
export const PROTO_VERSION = 1;

export const M = {
  HELLO: 0x01,
  HELLO_REPLY: 0x02,
  PING: 0x03,
  PONG: 0x04,
  TIME_SET: 0x05,
  RESEED: 0x06,
  EXEC: 0x10,
  EXEC_STARTED: 0x11,
  EXIT: 0x12,
  SIGNAL: 0x13,
  RESIZE: 0x14,
  ATTACH: 0x15,
  FILE_WRITE: 0x20,
  FILE_READ: 0x21,
  FILE_INFO: 0x22,
  STAT: 0x23,
  STAT_REPLY: 0x24,
  LIST: 0x25,
  LIST_ENTRIES: 0x26,
  MKDIR: 0x27,
  WRITE_DONE: 0x28,
  DATA: 0x30,
  EOF: 0x31,
  WINDOW: 0x32,
  RESET: 0x33,
  OK: 0x3e,
  ERROR: 0x3f,
} as const;

export const T = {
  VERSION: 1,
  UPTIME_MS: 2,
  PROTO: 3,
  PID: 4,
  INIT: 5,
  ARGV: 10,
  ENV: 11,
  CWD: 12,
  USER: 13,
  COLS: 14,
  ROWS: 15,
  STDIN: 16,
  TIMEOUT_MS: 17,
  WINDOW: 18,
  EXIT_CODE: 20,
  SIGNAL: 21,
  TIMED_OUT: 22,
  PATH: 30,
  MODE: 31,
  PARENTS: 32,
  SIZE: 33,
  FOLLOW: 34,
  ENTRY: 35,
  NAME: 36,
  TYPE: 37,
  MTIME_NS: 38,
  TARGET: 39,
  TIME_NS: 40,
  APPLIED: 41,
  PREV_NS: 42,
  BYTES: 43,
  GRACE_MS: 44,
  ORPHANS_KILL: 45,
  MAX_STREAM: 46,
  DETACHED: 47,
  STREAM: 48,
  EXITED: 49,
  CODE: 50,
  MESSAGE: 51,
  ERRNO: 52,
  TTY: 53,
  DISCARDING: 54,
  HOSTNAME: 55,
  DURABLE: 56,
  IN_PLACE: 57,
  CONNECT: 58,
  OWNER: 60,
  XATTR: 61,
  KEEP_MODE: 62,
} as const;

/** Channel numbers carried in the flags byte of DATA, EOF and WINDOW frames. */
export const CH = { IN: 0, STDOUT: 1, STDERR: 2 } as const;

export interface Frame {
  type: number;
  flags: number;
  stream: number;
  payload: Buffer;
}

type FieldValue = string | number | bigint | boolean | Buffer;

export function encodeFrame(type: number, flags: number, stream: number, payload?: Buffer): Buffer {
  const len = payload?.length ?? 0;
  if (len > MAX_PAYLOAD) throw new RangeError(`frame payload ${len} > ${MAX_PAYLOAD}`);
  const h = Buffer.allocUnsafe(HDR_LEN);
  h[0] = MAGIC0;
  h[1] = MAGIC1;
  h[2] = type;
  h[3] = flags;
  h.writeUInt32BE(stream >>> 0, 4);
  h.writeUInt32BE(len, 8);
  return len ? Buffer.concat([h, payload!]) : h;
}

/** TLV: u8 tag, u32 BE length, value; integers are 8-byte BE signed. */
export function encodeFields(fields: Array<[number, FieldValue | undefined]>): Buffer {
  const parts: Buffer[] = [];
  for (const [tag, value] of fields) {
    if (value === undefined) continue;
    let v: Buffer;
    if (Buffer.isBuffer(value)) v = value;
    else if (typeof value === 'string') v = Buffer.from(value, 'utf8');
    else {
      v = Buffer.allocUnsafe(8);
      v.writeBigInt64BE(typeof value === 'bigint' ? value : BigInt(Number(value)));
    }
    const h = Buffer.allocUnsafe(5);
    h[0] = tag;
    h.writeUInt32BE(v.length, 1);
    parts.push(h, v);
  }
  return Buffer.concat(parts);
}

export class Fields {
  private readonly items: Array<[number, Buffer]> = [];

  constructor(buf: Buffer) {
    let i = 0;
    while (i + 5 <= buf.length) {
      const n = buf.readUInt32BE(i + 1);
      if (i + 5 + n > buf.length) break;
      this.items.push([buf[i], buf.subarray(i + 5, i + 5 + n)]);
      i += 5 + n;
    }
  }

  buf(tag: number): Buffer | undefined {
    return this.items.find(([t]) => t === tag)?.[1];
  }
  all(tag: number): Buffer[] {
    return this.items.filter(([t]) => t === tag).map(([, v]) => v);
  }
  str(tag: number): string | undefined {
    return this.buf(tag)?.toString('utf8');
  }
  bigint(tag: number): bigint | undefined {
    const v = this.buf(tag);
    return v && v.length === 8 ? v.readBigInt64BE() : undefined;
  }
  int(tag: number): number | undefined {
    const v = this.bigint(tag);
    return v === undefined ? undefined : Number(v);
  }
}

/** Incremental frame parser. Throws on a bad header (the stream is then unusable). */
export class FrameDecoder {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    let buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const frames: Frame[] = [];
    let off = 0;
    while (buf.length - off >= HDR_LEN) {
      if (buf[off] !== MAGIC0 || buf[off + 1] !== MAGIC1) throw new Error('bad frame magic from agent');
      const len = buf.readUInt32BE(off + 8);
      if (len > MAX_PAYLOAD) throw new Error(`oversized frame from agent (${len})`);
      if (buf.length - off < HDR_LEN + len) break;
      frames.push({
        type: buf[off + 2],
        flags: buf[off + 3],
        stream: buf.readUInt32BE(off + 4),
        payload: buf.subarray(off + HDR_LEN, off + HDR_LEN + len),
      });
      off += HDR_LEN + len;
    }
    buf = buf.subarray(off);
    // copy the remainder: keeping a view would pin the whole socket chunk
    this.pending = buf.length ? Buffer.from(buf) : Buffer.alloc(0);
    return frames;
  }
}
