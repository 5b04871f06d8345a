import type { RouteRegistrar } from '../../http/route.js';
import { ResponseIdParams } from '../../contract/inference.js';
import type { WebhookDeliveriesService } from './deliveries-service.js';
import type { OrganizationService } from '../../core/organization-service.js';

/** Delivery log and redelivery of completion webhooks, and the org's signing secret. */
export function webhookRoutes(r: RouteRegistrar, deliveries: WebhookDeliveriesService, organization: Pick<OrganizationService, 'get'>) {
  r.add({
    method: 'get',
    path: '/v1/responses/:response_id/deliveries',
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    summary: 'Every completion-webhook attempt for a response',
    params: ResponseIdParams,
    handler: ({ params, auth }) => deliveries.list(auth.orgId, params.response_id),
  });
  r.add({
    method: 'post',
    path: '/v1/responses/:response_id/deliveries/redeliver',
    area: 'inference',
    tag: 'inference',
    auth: 'any',
    summary: 'Send the completion webhook again now (a fresh series of rounds)',
    params: ResponseIdParams,
    handler: ({ params, auth }) => deliveries.redeliver(auth.orgId, params.response_id),
  });
  r.add({
    method: 'get',
    path: '/v1/webhook-secret',
    area: 'inference',
    tag: 'inference',
    auth: 'org',
    summary: 'The secret that signs completion webhooks (Standard Webhooks, whsec_...)',
    handler: async ({ auth }) => ({ webhook_secret: (await organization.get(auth.orgId)).webhook_secret }),
  });
}
