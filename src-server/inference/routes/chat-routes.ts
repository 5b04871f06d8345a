import type { RouteRegistrar } from '../../http/route.js';
import { ChatBody } from '../../contract/inference.js';
import { chatCompletionObject, chatToNative } from '../adapters/chat.js';
import { ChatStream } from '../adapters/chat-stream.js';
import type { InferenceService } from '../inference-service.js';
import { clientGone } from './client-gone.js';
import { INFERENCE_BODY_LIMIT } from './limits.js';
import { streamAnswer } from './stream.js';

/** POST /v1/chat/completions (alpha in the spec). */
export function chatRoutes(r: RouteRegistrar, svc: InferenceService) {
  r.add({
    method: 'post',
    path: '/v1/chat/completions',
    plain: true, // served ahead of Express (http/plain-front.ts): the handler uses node:http's API only
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    summary: 'Create a chat completion (stored; readable through GET /v1/responses/{id}); stream=true answers chat.completion.chunk events',
    body: ChatBody,
    bodyLimitBytes: INFERENCE_BODY_LIMIT,
    handler: async ({ body, auth, res, app }) => {
      const p = chatToNative(body);
      if (p.stream) return await streamAnswer(res, app, svc, 'chat', p, auth, new ChatStream(p.streamUsage ?? false));
      return chatCompletionObject(await svc.runSync('chat', p, auth, clientGone(res)));
    },
  });
}
