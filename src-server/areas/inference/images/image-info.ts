/** The image formats every style and every image-taking upstream accepts. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

interface ImageInfo {
  mediaType: (typeof IMAGE_MEDIA_TYPES)[number];
  width: number;
  height: number;
}

const ascii = (b: Buffer, at: number, n: number) => b.toString('latin1', at, at + n);

/**
 * The format and pixel size an image's header states (PNG, JPEG, GIF, WebP), or null when
 * the bytes are none of these (or too short to say). Reads the header only: it does not
 * check that the rest of the file decodes.
 */
export function imageInfo(b: Buffer): ImageInfo | null {
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a && ascii(b, 12, 4) === 'IHDR') {
    return { mediaType: 'image/png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  if (b.length >= 10 && (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a')) {
    return { mediaType: 'image/gif', width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegInfo(b);
  if (b.length >= 30 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return webpInfo(b);
  return null;
}

/** JPEG: walks the marker segments to the first start-of-frame (SOF0..SOF15 but DHT, JPG, DAC). */
function jpegInfo(b: Buffer): ImageInfo | null {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null;
    const m = b[i + 1]!;
    if (m === 0xff) {
      i++; // fill byte
      continue;
    }
    if (m === 0x01 || (m >= 0xd0 && m <= 0xd9)) {
      i += 2; // markers without a length
      continue;
    }
    if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) {
      return { mediaType: 'image/jpeg', height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    i += 2 + b.readUInt16BE(i + 2);
  }
  return null;
}

/** WebP: lossy (VP8), lossless (VP8L) and extended (VP8X) headers. */
function webpInfo(b: Buffer): ImageInfo | null {
  const chunk = ascii(b, 12, 4);
  if (chunk === 'VP8 ') return { mediaType: 'image/webp', width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const b1 = b[22]!;
    const b2 = b[23]!;
    const b3 = b[24]!;
    return { mediaType: 'image/webp', width: 1 + (((b1 & 0x3f) << 8) | b[21]!), height: 1 + (((b3 & 0x0f) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)) };
  }
  if (chunk === 'VP8X') return { mediaType: 'image/webp', width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  return null;
}
