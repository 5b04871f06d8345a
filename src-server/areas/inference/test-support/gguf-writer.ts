/**
 * A minimal GGUF v3 writer (no dependencies): metadata key/values and F32 tensors.
 * Layout: header, metadata, tensor infos, padding to `ALIGN`, tensor data (each aligned).
 */
const ALIGN = 32;

type Scalar = { t: 'u32'; v: number } | { t: 'i32'; v: number } | { t: 'f32'; v: number } | { t: 'bool'; v: boolean } | { t: 'str'; v: string };
export type MetaValue = Scalar | { t: 'arr-str'; v: string[] } | { t: 'arr-f32'; v: number[] } | { t: 'arr-i32'; v: number[] };

export interface Tensor {
  name: string;
  /** ggml order: dims[0] is the contiguous (innermost) dimension. */
  dims: number[];
  data: Float32Array;
}

const TYPE = { u32: 4, i32: 5, f32: 6, bool: 7, str: 8, arr: 9 } as const;
const GGML_F32 = 0;

class Buf {
  private parts: Buffer[] = [];
  size = 0;
  push(b: Buffer) {
    this.parts.push(b);
    this.size += b.length;
  }
  u32(v: number) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  i32(v: number) {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.push(b);
  }
  u64(v: number) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  f32(v: number) {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.push(b);
  }
  str(s: string) {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  pad() {
    const n = (ALIGN - (this.size % ALIGN)) % ALIGN;
    if (n) this.push(Buffer.alloc(n));
  }
  concat() {
    return Buffer.concat(this.parts);
  }
}

function writeValue(out: Buf, value: MetaValue) {
  switch (value.t) {
    case 'u32':
      out.u32(TYPE.u32);
      out.u32(value.v);
      break;
    case 'i32':
      out.u32(TYPE.i32);
      out.i32(value.v);
      break;
    case 'f32':
      out.u32(TYPE.f32);
      out.f32(value.v);
      break;
    case 'bool':
      out.u32(TYPE.bool);
      out.push(Buffer.from([value.v ? 1 : 0]));
      break;
    case 'str':
      out.u32(TYPE.str);
      out.str(value.v);
      break;
    case 'arr-str':
      out.u32(TYPE.arr);
      out.u32(TYPE.str);
      out.u64(value.v.length);
      value.v.forEach((s) => out.str(s));
      break;
    case 'arr-f32':
      out.u32(TYPE.arr);
      out.u32(TYPE.f32);
      out.u64(value.v.length);
      value.v.forEach((f) => out.f32(f));
      break;
    case 'arr-i32':
      out.u32(TYPE.arr);
      out.u32(TYPE.i32);
      out.u64(value.v.length);
      value.v.forEach((i) => out.i32(i));
      break;
  }
}

export function encodeGguf(meta: Record<string, MetaValue>, tensors: Tensor[]): Buffer {
  const head = new Buf();
  head.push(Buffer.from('GGUF', 'ascii'));
  head.u32(3);
  head.u64(tensors.length);
  head.u64(Object.keys(meta).length);
  for (const [key, value] of Object.entries(meta)) {
    head.str(key);
    writeValue(head, value);
  }
  let offset = 0;
  for (const t of tensors) {
    if (t.data.length !== t.dims.reduce((a, b) => a * b, 1)) throw new Error(`tensor ${t.name}: size does not match dims`);
    head.str(t.name);
    head.u32(t.dims.length);
    t.dims.forEach((d) => head.u64(d));
    head.u32(GGML_F32);
    head.u64(offset);
    offset += Math.ceil(t.data.byteLength / ALIGN) * ALIGN;
  }
  head.pad();
  for (const t of tensors) {
    head.push(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    head.pad();
  }
  return head.concat();
}
