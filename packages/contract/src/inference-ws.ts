import { z } from 'zod';
import { ResponsesBody } from './inference.js';
import { ResponsesStreamEvent } from './inference-stream.js';

/**
 * WebSocket mode of `/v1/responses` (beyond the spec; Open Responses' WebSocket mode): the
 * client sends `response.create` events, the service answers each with the same events a
 * streamed `POST /v1/responses` sends, one message per event, in order. The OpenAPI document
 * shows both under `x-websocket` of `GET /v1/responses`.
 */
export const ResponsesWsClientEvent = ResponsesBody.extend({
  type: z.literal('response.create'),
  store: z.boolean().optional().describe('false: answered, never stored; a later event on this connection may still continue from it.'),
});

export const ResponsesWsServerEvent = z.union([
  ResponsesStreamEvent,
  z.object({
    type: z.literal('error'),
    status: z.number().int(),
    error: z.object({ type: z.string(), code: z.string().nullable(), message: z.string(), param: z.string().nullable() }),
  }),
]);
