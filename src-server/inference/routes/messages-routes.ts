import type { RouteRegistrar } from '../../http/route.js';
import { MessagesBody } from '../../contract/inference.js';
import { notImplemented } from '../../http/api-errors.js';
import type { Method } from '../../http/route.js';
import { messageObject, messagesToNative } from '../adapters/messages.js';
import { MessagesStream } from '../adapters/messages-stream.js';
import type { InferenceService } from '../inference-service.js';
import { clientGone } from './client-gone.js';
import { INFERENCE_BODY_LIMIT } from './limits.js';
import { streamAnswer } from './stream.js';

const BATCH_ROUTES: [Method, string][] = [
  ['post', '/v1/messages/batches'],
  ['get', '/v1/messages/batches'],
  ['get', '/v1/messages/batches/:batch_id'],
  ['delete', '/v1/messages/batches/:batch_id'],
  ['post', '/v1/messages/batches/:batch_id/cancel'],
  ['get', '/v1/messages/batches/:batch_id/results'],
];

/** POST /v1/messages (alpha in the spec); message batches answer 501. */
export function messagesRoutes(r: RouteRegistrar, svc: InferenceService) {
  r.add({
    method: 'post',
    path: '/v1/messages',
    plain: true, // served ahead of Express (http/plain-front.ts): the handler uses node:http's API only
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    summary: 'Create a message (stored; readable through GET /v1/responses/{id}); stream=true answers Messages stream events',
    body: MessagesBody,
    bodyLimitBytes: INFERENCE_BODY_LIMIT,
    handler: async ({ body, auth, res, app }) => {
      const p = messagesToNative(body);
      if (p.stream) return await streamAnswer(res, app, svc, 'messages', p, auth, new MessagesStream());
      return messageObject(await svc.runSync('messages', p, auth, clientGone(res)));
    },
  });
  for (const [method, path] of BATCH_ROUTES) {
    r.add({
      method,
      path,
      area: 'inference',
      tag: 'inference',
      auth: 'any',
      idempotent: false,
      rawBody: method !== 'get',
      summary: 'Not supported (501)',
      handler: () => {
        throw notImplemented('Message batches are not supported by this service.');
      },
    });
  }
}
