import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './api-errors.js';
import { writeJson } from './error-handler.js';

/** The pipeline's idempotency (http/route.ts): the request's key, and the answer to a key already used. */
const IDEMPOTENCY_HEADER = 'idempotency-key';

export function idempotencyKey(req: IncomingMessage): string | undefined {
  const v = req.headers[IDEMPOTENCY_HEADER];
  if (typeof v !== 'string' || v.trim() === '') return undefined; // blank keys are ignored
  // Node hands header values over as latin1 (one char per wire byte): that length is the byte count.
  if (Buffer.byteLength(v, 'latin1') > 255) {
    throw new ApiError(400, 'invalid_request_error', 'Idempotency-Key must be at most 255 bytes.', { param: 'Idempotency-Key' });
  }
  return v;
}

export function replayOrRefuse(
  res: ServerResponse,
  prior: { request_hash: string; state: string; status: number | null; content_type: string | null; body: Buffer | null },
  reqHash: string,
) {
  if (prior.request_hash !== reqHash) {
    throw new ApiError(409, 'conflict_error', 'This Idempotency-Key was already used with a different request; send the corrected request under a new key.', {
      param: 'Idempotency-Key',
      code: 'idempotency_key_reused',
    });
  }
  if (prior.state === 'in_flight') {
    throw new ApiError(503, 'server_error', 'A request with this Idempotency-Key is still being processed; retry shortly.', {
      code: 'idempotency_in_flight',
      headers: { 'Retry-After': '1' },
    });
  }
  writeJson(res, prior.status!, { 'Idempotent-Replayed': 'true' }, prior.body ?? Buffer.alloc(0), prior.content_type ?? 'application/json');
}
