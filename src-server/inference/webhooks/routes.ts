import type { RouteRegistrar } from '../../app-context.js';
import { ResponseIdParams, type DeliveryList } from '../../contract/inference.js';
import { conflict, notFound } from '../../http/errors.js';
import type { StoredResponse } from '../store/responses-repo.js';
import type { DeliveriesRepo } from './deliveries-repo.js';

/** Delivery log and redelivery of completion webhooks, and the org's signing secret. */
export function webhookRoutes(
  r: RouteRegistrar,
  deps: { getResponse: (id: string) => StoredResponse | undefined; deliveries: DeliveriesRepo; rounds: number; changed: () => void },
) {
  const ownResponse = (id: string, orgId: string) => {
    const stored = deps.getResponse(id);
    if (!stored || stored.orgId !== orgId) throw notFound(`No response with id ${id}.`, null, 'response_id');
    return stored;
  };
  r.add({
    method: 'get',
    path: '/v1/responses/:response_id/deliveries',
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    summary: 'Every completion-webhook attempt for a response',
    params: ResponseIdParams,
    handler: ({ params, auth }): DeliveryList => {
      ownResponse(params.response_id, auth.orgId);
      const d = deps.deliveries.get(params.response_id);
      const data = d ? deps.deliveries.attempts(d.responseId).map((a) => ({ ...a, at: new Date(a.at).toISOString() })) : [];
      return {
        object: 'list',
        data,
        url: d?.url ?? null,
        state: d ? (d.state === 'waiting' || d.state === 'skipped' ? 'none' : d.state) : 'none',
        rounds_done: d?.roundsDone ?? 0,
        next_round_at: d?.state === 'pending' ? new Date(d.nextAt).toISOString() : null,
      };
    },
  });
  r.add({
    method: 'post',
    path: '/v1/responses/:response_id/deliveries/redeliver',
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    summary: 'Send the completion webhook again now (a fresh series of rounds)',
    params: ResponseIdParams,
    handler: ({ params, auth }) => {
      ownResponse(params.response_id, auth.orgId);
      const d = deps.deliveries.get(params.response_id);
      if (!d) throw conflict('This response has no valid metadata.completion_webhook.', 'no_webhook');
      if (d.state === 'waiting') throw conflict('This response has not finished yet; its webhook is sent when it does.', 'not_finished');
      if (d.state === 'skipped')
        throw conflict('This response failed; completion webhooks are sent for completed and incomplete responses only.', 'failed_precondition');
      deps.deliveries.redeliver(d.responseId, deps.rounds, Date.now());
      deps.changed();
      return { response_id: d.responseId, state: 'pending' };
    },
  });
  r.add({
    method: 'get',
    path: '/v1/webhook-secret',
    area: 'inference',
    tag: 'inference',
    auth: 'org',
    summary: 'The secret that signs completion webhooks (Standard Webhooks, whsec_...)',
    handler: ({ app, auth }) => ({ webhook_secret: app.services.organization.get(auth.orgId).webhook_secret }),
  });
}
