/** PNGs in tests and benches, read with pngjs (the service's own encoder's library). */
import { PNG } from 'pngjs';

interface Pixels {
  width: number;
  height: number;
  /** RGBA bytes, row by row (pngjs expands RGB). */
  data: Buffer;
}

export function decodePng(png: Buffer | Uint8Array): Pixels {
  const { width, height, data } = PNG.sync.read(Buffer.from(png));
  return { width, height, data };
}

/** The pixel at (x, y) as [r, g, b]. */
export function pixel(p: Pixels, x: number, y: number): [number, number, number] {
  const i = (y * p.width + x) * 4;
  return [p.data[i]!, p.data[i + 1]!, p.data[i + 2]!];
}
