import type { RouteRegistrar } from '../../http/route.js';
import { ChatBody } from '../../contract/inference.js';
import { chatCompletionObject, chatToNative } from '../adapters/chat.js';
import type { InferenceService } from '../service.js';
import { clientGone } from './client-gone.js';
import { INFERENCE_BODY_LIMIT } from './limits.js';

/** POST /v1/chat/completions (alpha in the spec). */
export function chatRoutes(r: RouteRegistrar, svc: InferenceService) {
  r.add({
    method: 'post',
    path: '/v1/chat/completions',
    plain: true, // served ahead of Express (http/plain-front.ts): the handler uses node:http's API only
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    summary: 'Create a chat completion (stored; readable through GET /v1/responses/{id})',
    body: ChatBody,
    bodyLimitBytes: INFERENCE_BODY_LIMIT,
    handler: async ({ body, auth, res }) => chatCompletionObject(await svc.runSync('chat', chatToNative(body), auth, clientGone(res))),
  });
}
