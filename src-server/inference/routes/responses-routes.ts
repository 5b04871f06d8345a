import type { RouteRegistrar } from '../../http/route.js';
import { ResponseIdParams, ResponsesBody } from '../../contract/inference.js';
import { notFound, notImplemented } from '../../http/errors.js';
import { Reply } from '../../http/route.js';
import { responsesToNative } from '../adapters/responses.js';
import { responseObject } from '../adapters/responses-view.js';
import type { InferenceService } from '../service.js';
import { clientGone } from './client-gone.js';
import { INFERENCE_BODY_LIMIT } from './limits.js';

/** POST /v1/responses, GET /v1/responses/{id} (any style's id), and the unsupported operations. */
export function responsesRoutes(r: RouteRegistrar, svc: InferenceService) {
  r.add({
    method: 'post',
    path: '/v1/responses',
    plain: true, // served ahead of Express (http/plain-front.ts): the handler uses node:http's API only
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    summary: 'Create a response (Responses API); background requests answer 202 with status queued',
    body: ResponsesBody,
    bodyLimitBytes: INFERENCE_BODY_LIMIT,
    handler: async ({ body, auth, res }) => {
      const p = responsesToNative(body);
      if (p.background) return new Reply(202, responseObject(svc.enqueue('responses', p, auth)));
      return responseObject(await svc.runSync('responses', p, auth, clientGone(res)));
    },
  });
  r.add({
    method: 'get',
    path: '/v1/responses/:response_id',
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    summary: 'Read a stored response (also chat completion and message ids), Responses-shaped',
    params: ResponseIdParams,
    handler: ({ params, auth }) => {
      const stored = svc.get(params.response_id);
      if (!stored || stored.orgId !== auth.orgId) throw notFound(`No response with id ${params.response_id}.`, null, 'response_id');
      return responseObject(stored);
    },
  });
  const unsupported = (what: string) => () => {
    throw notImplemented(`${what} is not supported by this service.`);
  };
  r.add({
    method: 'delete',
    path: '/v1/responses/:response_id',
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    idempotent: false,
    summary: 'Not supported (501)',
    handler: unsupported('Deleting a response'),
  });
  r.add({
    method: 'post',
    path: '/v1/responses/:response_id/cancel',
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    idempotent: false,
    summary: 'Not supported (501)',
    handler: unsupported('Cancelling a response'),
  });
}
