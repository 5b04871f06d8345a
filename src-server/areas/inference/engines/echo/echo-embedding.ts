import { createHash } from 'node:crypto';
import { unitVector } from '../../native.js';

/** The length of box/echo's vectors (`dimensions` may ask for fewer). */
const ECHO_DIMENSIONS = 64;

/**
 * box/echo's embedding of a text: deterministic, not semantic. SHA-256 of `<block>:<text>`
 * for blocks 0..7 gives 64 bytes, each mapped to [-1, 1], and the vector is scaled to unit
 * length (cut first to `dimensions`). The same text always gets the same vector, different
 * texts (almost surely) different ones, so clients and vector stores can be tested offline.
 */
export function echoEmbedding(text: string, dimensions?: number): number[] {
  const raw: number[] = [];
  for (let block = 0; raw.length < ECHO_DIMENSIONS; block++) {
    for (const b of createHash('sha256').update(`${block}:${text}`).digest()) raw.push(b / 127.5 - 1);
  }
  return unitVector(raw.slice(0, ECHO_DIMENSIONS), dimensions);
}
