import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { encodePng, readXwd, scaleImage } from './screen-image.js';
import { xwd } from './test-support/xwd.js';

describe('screen images (XWD from the box, PNG from the host)', () => {
  const pattern = (x: number, y: number): [number, number, number] => [x * 10, y * 20, (x + y) % 2 ? 255 : 0];

  it('reads an XWD dump (header, name, colormap, padded lines) into RGB, pixel for pixel, on both paths', () => {
    const fast = xwd(5, 3, pattern, { pad: 8 });
    // the same pixels big-endian: the general path (masks and byte order read from the header)
    const general = Buffer.from(fast);
    general.writeUInt32BE(1, 7 * 4);
    const start = general.readUInt32BE(0) + 2 * 12;
    for (let i = start; i + 4 <= general.length; i += 4) general.writeUInt32BE(fast.readUInt32LE(i), i);
    for (const img of [readXwd(fast), readXwd(general)]) {
      expect([img.width, img.height]).toEqual([5, 3]);
      for (let y = 0; y < 3; y++) for (let x = 0; x < 5; x++) expect([...img.data.subarray((y * 5 + x) * 3, (y * 5 + x) * 3 + 3)]).toEqual(pattern(x, y));
    }
  });

  it('encodes a PNG that decodes to the same pixels, RGB without alpha', () => {
    const img = readXwd(xwd(16, 9, pattern));
    const png = encodePng(img);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    const back = PNG.sync.read(png);
    expect([back.width, back.height, back.colorType]).toEqual([16, 9, 2]);
    const rgb = Buffer.from(back.data.filter((_, i) => i % 4 !== 3)); // pngjs reads into RGBA
    expect(Buffer.compare(rgb, img.data)).toBe(0);
  });

  it('scales by averaging the pixels each one covers', () => {
    const img = readXwd(xwd(4, 2, (x) => (x % 2 ? [200, 100, 0] : [100, 50, 0])));
    const half = scaleImage(img, 50);
    expect([half.width, half.height]).toEqual([2, 1]);
    expect([...half.data]).toEqual([150, 75, 0, 150, 75, 0]);
    expect(scaleImage(img, 100)).toBe(img);
  });

  it('refuses what is not a 32-bit ZPixmap XWD, or is cut short, with the reason', () => {
    expect(() => readXwd(Buffer.from('\x89PNG\r\n'))).toThrow(/not an XWD image/);
    const bad = xwd(2, 2, pattern);
    bad.writeUInt32BE(16, 11 * 4);
    expect(() => readXwd(bad)).toThrow(/16 bits per pixel/);
    expect(() => readXwd(xwd(8, 8, pattern).subarray(0, 300))).toThrow(/truncated XWD image/);
  });
});
