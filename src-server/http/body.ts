import type { Request } from 'express';
import { ApiError, tooLarge } from './errors.js';

/**
 * Reads a JSON request body as raw bytes (idempotency compares bodies byte for byte),
 * refusing more than `limit` bytes without buffering them.
 */
export async function readJsonBody(req: Request, limit: number): Promise<Buffer> {
  const type = req.headers['content-type'];
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limit) throw tooLarge(`The request body is ${declared} bytes; the limit is ${limit} bytes.`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.unpipe?.();
      throw tooLarge(`The request body is larger than the limit of ${limit} bytes.`);
    }
    chunks.push(chunk);
  }
  const raw = Buffer.concat(chunks);
  if (raw.length && type && !/^application\/(.+\+)?json\b/i.test(type)) {
    throw new ApiError(400, 'invalid_request_error', `Content-Type must be application/json (got "${type}").`, { param: 'Content-Type' });
  }
  return raw;
}
