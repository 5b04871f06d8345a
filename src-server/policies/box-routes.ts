import type { Request } from 'express';
import type { AppContext, RouteRegistrar } from '../app-context.js';
import { OVERRIDE_HEADER, overrideReason } from '../contract/boxes.js';
import { AttachPolicyBody, BoxPolicyParams, HttpPolicy } from '../contract/policies.js';
import type { Principal } from '../http/auth.js';
import { forbidden, notFound } from '../http/errors.js';
import { parseOr400 } from '../http/validate.js';
import type { Policies } from './service.js';

interface BoxRow {
  id: string;
  http_policy_id: string | null;
  visibility: 'org' | 'private';
  created_by_key_id: string;
}

/**
 * The box a policy call targets: 404 unless it exists (not terminated) in the caller's
 * organization. Changing the policy of a private box someone else created takes an
 * operator override reason, which goes to the audit log (spec, Authentication 5;
 * the same rule as boxes/box-access.ts applies to every other box operation).
 */
function targetBox(app: AppContext, req: Request, auth: Principal, boxId: string, change: boolean): BoxRow {
  const box = app.db
    .prepare("SELECT id, http_policy_id, visibility, created_by_key_id FROM boxes WHERE org_id = ? AND id = ? AND status != 'terminated'")
    .get(auth.orgId, boxId) as BoxRow | undefined;
  if (!box) throw notFound(`No box ${boxId} in this organization.`, null, 'box_id');
  if (!change || box.visibility !== 'private' || box.created_by_key_id === auth.key.id) return box;
  const header = req.headers[OVERRIDE_HEADER.toLowerCase()];
  if (typeof header !== 'string') {
    throw forbidden(`Box ${boxId} is private to the key that created it; to set its HTTP policy anyway, send a reason in the ${OVERRIDE_HEADER} header.`);
  }
  const reason = parseOr400(overrideReason, header, OVERRIDE_HEADER);
  app.repos.audit.add({ org_id: auth.orgId, key_id: auth.key.id, action: 'box.override.http_policy', target: boxId, reason, details: { method: req.method, path: req.path } });
  return box;
}

/** Attaching policies to boxes: read, set, clear. */
export function boxPolicyRoutes(r: RouteRegistrar, policies: Policies) {
  r.add({
    method: 'get', path: '/v1/boxes/:box_id/http-policy', area: 'box', tag: 'http-policies', summary: 'The HTTP policy attached to a box',
    params: BoxPolicyParams, response: HttpPolicy,
    handler: ({ app, req, auth, params }) => {
      const box = targetBox(app, req, auth, params.box_id, false);
      const p = box.http_policy_id ? policies.get(auth.orgId, box.http_policy_id) : undefined;
      if (!p) throw notFound(`Box ${params.box_id} has no HTTP policy attached.`);
      return p;
    },
  });

  r.add({
    method: 'put', path: '/v1/boxes/:box_id/http-policy', area: 'box', tag: 'http-policies', summary: 'Attach an HTTP policy to a box',
    params: BoxPolicyParams, body: AttachPolicyBody, response: HttpPolicy,
    handler: ({ app, req, auth, params, body }) => {
      const p = policies.mustGet(auth.orgId, body.policy_id, 'policy_id');
      targetBox(app, req, auth, params.box_id, true);
      policies.repo.setBoxPolicy(params.box_id, p.id, new Date().toISOString());
      return p;
    },
  });

  r.add({
    method: 'delete', path: '/v1/boxes/:box_id/http-policy', area: 'box', tag: 'http-policies',
    summary: "Detach a box's HTTP policy (the organization default applies again)",
    params: BoxPolicyParams,
    handler: ({ app, req, auth, params }) => {
      const box = targetBox(app, req, auth, params.box_id, true);
      if (box.http_policy_id) policies.repo.setBoxPolicy(params.box_id, null, new Date().toISOString());
      return { box_id: params.box_id, http_policy_id: null };
    },
  });
}
