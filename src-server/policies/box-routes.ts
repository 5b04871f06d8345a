import type { RouteRegistrar } from '../app-context.js';
import { boxFor } from '../boxes/box-access.js';
import { AttachPolicyBody, BoxPolicyParams, HttpPolicy } from '../contract/policies.js';
import { notFound } from '../http/errors.js';
import type { Policies } from './service.js';

/** Attaching policies to boxes: read, set, clear. */
export function boxPolicyRoutes(r: RouteRegistrar, policies: Policies) {
  r.add({
    method: 'get',
    path: '/v1/boxes/:box_id/http-policy',
    area: 'box',
    tag: 'http-policies',
    summary: 'The HTTP policy attached to a box',
    params: BoxPolicyParams,
    response: HttpPolicy,
    handler: ({ app, req, auth, params }) => {
      const box = boxFor(app, req, auth, params.box_id, 'read');
      const p = box.http_policy_id ? policies.get(auth.orgId, box.http_policy_id) : undefined;
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
    handler: ({ app, req, auth, params, body }) => {
      const p = policies.mustGet(auth.orgId, body.policy_id, 'policy_id');
      boxFor(app, req, auth, params.box_id, 'http_policy');
      app.services.boxes.setHttpPolicy(params.box_id, p.id);
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
    handler: ({ app, req, auth, params }) => {
      const box = boxFor(app, req, auth, params.box_id, 'http_policy');
      if (box.http_policy_id) app.services.boxes.setHttpPolicy(params.box_id, null);
      return { box_id: params.box_id, http_policy_id: null };
    },
  });
}
