/** An XWD dump as Xvfb writes one on x86: the header big-endian, pixels BGRX little-endian, 2 colormap entries, a name. */
export function xwd(width: number, height: number, pixel: (x: number, y: number) => [number, number, number], opts: { pad?: number } = {}) {
  const name = Buffer.from('Xvfb main window\0');
  const headerSize = 100 + name.length;
  const bytesPerLine = width * 4 + (opts.pad ?? 0);
  const h = Buffer.alloc(100);
  const fields = [headerSize, 7, 2, 24, width, height, 0, 0, 32, 0, 32, 32, bytesPerLine, 4, 0xff0000, 0xff00, 0xff, 8, 256, 2, width, height, 0, 0, 0];
  fields.forEach((v, i) => h.writeUInt32BE(v, i * 4));
  const pixels = Buffer.alloc(bytesPerLine * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const [r, g, b] = pixel(x, y);
      pixels.writeUInt32LE(((r << 16) | (g << 8) | b) >>> 0, y * bytesPerLine + x * 4);
    }
  return Buffer.concat([h, name, Buffer.alloc(2 * 12), pixels]);
}
