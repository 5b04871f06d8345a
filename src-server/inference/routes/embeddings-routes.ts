import { EmbeddingsBody } from '../../contract/inference-embeddings.js';
import type { RouteRegistrar } from '../../http/route.js';
import type { EmbeddingsService } from '../embeddings.js';
import { clientGone } from './client-gone.js';
import { INFERENCE_BODY_LIMIT } from './limits.js';

/** POST /v1/embeddings (beyond the spec; OpenAI's Embeddings API, inference/embeddings.ts). */
export function embeddingsRoutes(r: RouteRegistrar, svc: EmbeddingsService) {
  r.add({
    method: 'post',
    path: '/v1/embeddings',
    plain: true, // served ahead of Express (http/plain-front.ts): the handler uses node:http's API only
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    summary: 'Create embeddings (OpenAI Embeddings API): box/echo, local GGUF models, OpenAI-style upstreams; input tokens are charged',
    body: EmbeddingsBody,
    bodyLimitBytes: INFERENCE_BODY_LIMIT,
    handler: async ({ body, auth, res }) => await svc.create(body, auth, clientGone(res)),
  });
}
