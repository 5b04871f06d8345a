import type { RouteRegistrar } from '../http/route.js';
import type { BoxAccess } from '../boxes/ports.js';
import { AttachPolicyBody, BoxPolicyParams, HttpPolicy } from '../contract/policies.js';
import { notFound } from '../http/api-errors.js';
import type { Policies } from './policies-service.js';
import type { BoxService } from '../boxes/module.js';

/** Attaching policies to boxes: read, set, clear. */
export function boxPolicyRoutes(r: RouteRegistrar, policies: Policies, s: { boxes: Pick<BoxService, 'setHttpPolicy'>; access: BoxAccess }) {
  const { access } = s;
  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/http-policy',
    area: 'box',
    tag: 'http-policies',
    summary: 'The HTTP policy attached to a box',
    params: BoxPolicyParams,
    response: HttpPolicy,
    handler: async ({ req, auth, params }) => {
      const box = await access.boxFor(req, auth, params.box_id, 'read');
      const p = box.http_policy_id ? await policies.get(auth.orgId, box.http_policy_id) : undefined;
      if (!p) throw notFound(`Box ${params.box_id} has no HTTP policy attached.`);
      return p;
    },
  });

  r.add({
    method: 'put',
    path: '/v1/boxes/:box_id/http-policy',
    area: 'box',
    tag: 'http-policies',
    summary: 'Attach an HTTP policy to a box',
    params: BoxPolicyParams,
    body: AttachPolicyBody,
    response: HttpPolicy,
    handler: async ({ req, auth, params, body }) => {
      const p = await policies.mustGet(auth.orgId, body.policy_id, 'policy_id');
      await access.boxFor(req, auth, params.box_id, 'http_policy');
      await s.boxes.setHttpPolicy(params.box_id, p.id);
      return p;
    },
  });

  r.add({
    method: 'delete',
    path: '/v1/boxes/:box_id/http-policy',
    area: 'box',
    tag: 'http-policies',
    summary: "Detach a box's HTTP policy (the organization default applies again)",
    params: BoxPolicyParams,
    handler: async ({ req, auth, params }) => {
      const box = await access.boxFor(req, auth, params.box_id, 'http_policy');
      if (box.http_policy_id) await s.boxes.setHttpPolicy(params.box_id, null);
      return { box_id: params.box_id, http_policy_id: null };
    },
  });
}
