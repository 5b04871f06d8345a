import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import zlib from 'node:zlib';
import { expect, it } from 'vitest';
import { openLayer } from './layer-apply.js';

// Layers arrive plain, gzip- or zstd-compressed (docker save, OCI layouts); openLayer tells
// them apart by their first bytes. zstd is looked up at call time: Node before 22.15 has
// none, and a named import of it made every `box image` command fail to load there.
const tar = Buffer.alloc(3 * 512, 7); // stands in for a tar stream: opaque bytes
const read = async (b: Buffer, ...zstd: [null?]) => buffer(await openLayer(Readable.from([b]), ...zstd));

it('passes a plain layer through and decompresses gzip and zstd ones', async () => {
  expect(await read(tar)).toEqual(tar);
  expect(await read(zlib.gzipSync(tar))).toEqual(tar);
  // the tests run on the project's Node 22 (the `node` devDependency), which has zstd
  expect(await read((zlib as unknown as { zstdCompressSync(b: Buffer): Buffer }).zstdCompressSync(tar))).toEqual(tar);
});

it('without zstd in this Node, a zstd layer gets a clear error and the other layers still open', async () => {
  const zstdMagic = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), tar]);
  await expect(read(zstdMagic, null)).rejects.toThrow(/zstd-compressed, which needs Node 22\.15 or later \(this is Node \d+/);
  expect(await read(zlib.gzipSync(tar), null)).toEqual(tar);
});
