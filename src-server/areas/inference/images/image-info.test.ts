import { describe, expect, it } from 'vitest';
import { gif, jpeg, png, webp } from '../test-support/images.js';
import { imageInfo } from './image-info.js';

describe('imageInfo reads the pixel size from the header', () => {
  it.each([
    ['png', png(32, 20), 'image/png', 32, 20],
    ['gif', gif(640, 480), 'image/gif', 640, 480],
    ['jpeg', jpeg(1920, 1080), 'image/jpeg', 1920, 1080],
    ['webp lossy', webp('VP8 ', 300, 200), 'image/webp', 300, 200],
    ['webp lossless', webp('VP8L', 4000, 3), 'image/webp', 4000, 3],
    ['webp extended', webp('VP8X', 70000, 9), 'image/webp', 70000, 9],
  ])('%s', (_name, bytes, mediaType, width, height) => {
    expect(imageInfo(bytes)).toEqual({ mediaType, width, height });
  });

  it('answers null for anything else, or a header cut short', () => {
    expect(imageInfo(Buffer.from('hello, not an image at all'))).toBeNull();
    expect(imageInfo(png(2, 2).subarray(0, 20))).toBeNull();
    expect(imageInfo(Buffer.from([0xff, 0xd8, 0xff, 0xd9]))).toBeNull();
  });
});
