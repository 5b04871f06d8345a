import type { RouteRegistrar } from '../../http/route.js';
import { ResponseIdParams, ResponsesBody } from '../../contract/inference.js';
import { CompactBody } from '../../contract/inference-compact.js';
import { invalid } from '../../core/domain-errors.js';
import { notFound, notImplemented } from '../../http/api-errors.js';
import { Reply } from '../../http/route.js';
import { responsesToNative } from '../adapters/responses.js';
import { responseObject } from '../adapters/responses-view.js';
import { ResponsesStream } from '../adapters/responses-stream.js';
import type { InferenceService } from '../inference-service.js';
import { clientGone } from './client-gone.js';
import { INFERENCE_BODY_LIMIT } from './limits.js';
import { streamAnswer } from './stream.js';

/** POST /v1/responses, POST /v1/responses/compact, GET /v1/responses/{id} (any style's id), and the unsupported operations. */
export function responsesRoutes(r: RouteRegistrar, svc: InferenceService) {
  /** The stored response a request continues (any style's id; a finished one of the caller's organization). */
  const previousOf = async (id: string | null | undefined, orgId: string) => {
    if (!id) return undefined;
    const prev = await svc.get(id);
    // Unknown, another organization's, or answered with store=false: Open Responses' code.
    if (!prev || prev.orgId !== orgId) throw notFound(`Previous response with id ${id} not found.`, 'previous_response_not_found', 'previous_response_id');
    if (!prev.result) throw invalid(`The response ${id} has not finished (status ${prev.status}); continue from a finished response.`, 'previous_response_id');
    return prev;
  };
  r.add({
    method: 'post',
    path: '/v1/responses',
    plain: true, // served ahead of Express (http/plain-front.ts): the handler uses node:http's API only
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    summary:
      'Create a response (Responses API); background requests answer 202 with status queued; stream=true answers Responses stream events; previous_response_id continues a stored response',
    body: ResponsesBody,
    bodyLimitBytes: INFERENCE_BODY_LIMIT,
    handler: async ({ body, auth, res, app }) => {
      const p = responsesToNative(body, await previousOf(body.previous_response_id, auth.orgId));
      if (p.stream) return await streamAnswer(res, app, svc, 'responses', p, auth, new ResponsesStream());
      if (p.background) return new Reply(202, responseObject(await svc.enqueue('responses', p, auth)));
      return responseObject(await svc.runSync('responses', p, auth, clientGone(res)));
    },
  });
  r.add({
    method: 'post',
    path: '/v1/responses/compact',
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    summary:
      'Compact a conversation (input and/or previous_response_id) into a response.compaction: its user messages and one compaction item, which a later POST /v1/responses takes as an input item',
    body: CompactBody,
    bodyLimitBytes: INFERENCE_BODY_LIMIT,
    handler: async ({ body, auth }) => {
      if (!body.input?.length && !body.previous_response_id) throw invalid('Send the conversation to compact: input, previous_response_id, or both.', 'input');
      // Instructions are not packed: they do not carry over to the next response (as with previous_response_id).
      const conversation = { model: body.model, input: body.input ?? [] } as ResponsesBody;
      return svc.compact(responsesToNative(conversation, await previousOf(body.previous_response_id, auth.orgId)));
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
    handler: async ({ params, auth }) => {
      const stored = await svc.get(params.response_id);
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
