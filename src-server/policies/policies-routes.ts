import type { RouteRegistrar } from '../http/route.js';
import { page, PageQuery } from '../contract/common.js';
import { CreatePolicyBody, HttpPolicy, PatchPolicyBody, PolicyIdParams, policyDocumentProblem, type PolicyDocument } from '../contract/policies.js';
import { badRequest } from '../http/api-errors.js';
import { POLICY_PRESETS, presetById } from './presets.js';
import type { Policies } from './policies-service.js';

/** 400 naming the field, e.g. `document["*.example.com"].rules[2].respond.status`. */
function checkedDocument(doc: unknown): PolicyDocument {
  const problem = policyDocumentProblem(doc);
  if (problem) throw badRequest(`Invalid ${problem.param}: ${problem.message}.`, problem.param);
  return doc as PolicyDocument;
}

/** CRUD of HTTP (egress) policies (the spec, "HTTP policy"). */
export function policyRoutes(r: RouteRegistrar, policies: Policies) {
  r.add({
    method: 'get',
    path: '/v1/http-policies/presets',
    area: 'box',
    tag: 'http-policies',
    summary: 'Ready-made policies (deny all, allow all logged, package registries, local gateway only) to create from',
    handler: () => ({ data: POLICY_PRESETS }),
  });

  r.add({
    method: 'get',
    path: '/v1/http-policies',
    area: 'box',
    tag: 'http-policies',
    summary: 'List HTTP policies, oldest first',
    query: PageQuery,
    handler: async ({ auth, query }) => {
      const { rows, total } = await policies.list(auth.orgId, query.limit, query.offset);
      return page(rows, query, total);
    },
  });

  r.add({
    method: 'post',
    path: '/v1/http-policies',
    area: 'box',
    tag: 'http-policies',
    summary: 'Create an HTTP policy',
    body: CreatePolicyBody,
    response: HttpPolicy,
    handler: async ({ auth, body }) => {
      if (body.preset !== undefined) {
        const p = presetById(body.preset);
        if (!p) throw badRequest(`Unknown preset ${JSON.stringify(body.preset)}; one of: ${POLICY_PRESETS.map((x) => x.id).join(', ')}.`, 'preset');
        return await policies.create(auth.orgId, body.name ?? p.name, structuredClone(p.document));
      }
      return await policies.create(auth.orgId, body.name!, checkedDocument(body.document));
    },
  });

  r.add({
    method: 'get',
    path: '/v1/http-policies/:id',
    area: 'box',
    tag: 'http-policies',
    summary: 'Get an HTTP policy',
    params: PolicyIdParams,
    response: HttpPolicy,
    handler: async ({ auth, params }) => await policies.mustGet(auth.orgId, params.id),
  });

  r.add({
    method: 'patch',
    path: '/v1/http-policies/:id',
    area: 'box',
    tag: 'http-policies',
    summary: 'Rename an HTTP policy or replace its document',
    params: PolicyIdParams,
    body: PatchPolicyBody,
    response: HttpPolicy,
    handler: async ({ auth, params, body }) =>
      await policies.update(auth.orgId, params.id, body.name, body.document === undefined ? undefined : checkedDocument(body.document)),
  });

  r.add({
    method: 'delete',
    path: '/v1/http-policies/:id',
    area: 'box',
    tag: 'http-policies',
    summary: 'Delete an HTTP policy (409 while attached to a box)',
    params: PolicyIdParams,
    response: HttpPolicy,
    handler: async ({ auth, params }) => await policies.delete(auth.orgId, params.id),
  });
}
