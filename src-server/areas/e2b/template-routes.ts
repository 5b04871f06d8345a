import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { E2BTemplateIdParams } from '@box/contract/e2b';
import {
  E2BAliasParams,
  E2BAssignTagsBody,
  E2BDeleteTagsBody,
  E2BBuildStatusQuery,
  E2BTemplateBuildParams,
  E2BTemplateBuildStart,
  E2BTemplateFilesParams,
  E2BTemplateRequestBody,
} from '@box/contract/e2b-features';
import { notFound } from '../../kernel/domain-errors.js';
import { ApiError } from '../../platform/http/api-errors.js';
import { setErrorStyle } from '../../platform/http/error-handler.js';
import { Reply, type Method, type RouteRegistrar, type RouteSpec } from '../../platform/http/route.js';
import type { TemplateBuilds } from './templates-build.js';

const PREFIX = '/e2b/api';

/** E2B's template build routes, as the `e2b` SDK's `Template.build` calls them, on Box's image builder. */
export function e2bTemplateRoutes(r: RouteRegistrar, builds: TemplateBuilds): void {
  const on = <B, Q, P>(method: Method, path: string, summary: string, spec: Omit<RouteSpec<B, Q, P>, 'method' | 'path' | 'area' | 'tag' | 'summary'>) =>
    r.add({ method, path: `${PREFIX}${path}`, area: 'box', tag: 'e2b', summary, errors: 'e2b', ...spec });

  on('post', '/v3/templates', 'E2B: request a template build (a Box image of its name)', {
    body: E2BTemplateRequestBody,
    handler: async ({ auth, body }) => new Reply(202, await builds.request(auth.orgId, body)),
  });
  on('get', '/templates/aliases/:alias', 'E2B: whether a template of this name exists', {
    params: E2BAliasParams,
    handler: async ({ params: p }) => {
      if (!(await builds.exists(p.alias))) throw notFound(`Template ${p.alias} not found`, 'not_found', 'alias');
      return { templateID: p.alias, public: false };
    },
  });
  on('post', '/templates/tags', 'E2B: give a template build (`target`, name:tag) more tags', {
    body: E2BAssignTagsBody,
    handler: async ({ auth, body }) => new Reply(201, await builds.tags.assignTags(auth.orgId, body.target, body.tags)),
  });
  on('delete', '/templates/tags', "E2B: remove tags of a template (not its 'default')", {
    body: E2BDeleteTagsBody,
    handler: async ({ auth, body }) => (await builds.tags.removeTags(auth.orgId, body.name, body.tags), new Reply(204, null)),
  });
  on('get', '/templates/:templateID/tags', "E2B: a template's tags and the builds they point to", {
    params: E2BTemplateIdParams,
    handler: ({ auth, params: p }) => builds.tags.list(auth.orgId, p.templateID),
  });
  on('get', '/templates', "E2B: the organization's templates built here (Box images), newest first", {
    handler: ({ auth }) => builds.list(auth.orgId),
  });
  on('get', '/templates/:templateID', 'E2B: a template and its builds', {
    params: E2BTemplateIdParams,
    handler: ({ auth, params: p }) => builds.get(auth.orgId, p.templateID),
  });
  on('get', '/templates/:templateID/files/:hash', "E2B: where to upload a copy step's files (signed URL), or that they are here", {
    params: E2BTemplateFilesParams,
    handler: ({ req, auth, params: p }) => builds.uploadLink(auth.orgId, p.templateID, p.hash, `${req.protocol}://${req.get('host')}`),
  });
  on('post', '/v2/templates/:templateID/builds/:buildID', 'E2B: start a template build (Boxfile steps in builder VMs)', {
    params: E2BTemplateBuildParams,
    body: E2BTemplateBuildStart,
    handler: async ({ auth, params: p, body }) => (await builds.start(auth.orgId, p.templateID, p.buildID, body), new Reply(202, {})),
  });
  on('get', '/templates/:templateID/builds/:buildID/status', "E2B: a template build's status and its log from an offset", {
    params: E2BTemplateBuildParams,
    query: E2BBuildStatusQuery,
    handler: ({ auth, params: p, query }) => builds.status(auth.orgId, p.templateID, p.buildID, query.logsOffset),
  });
}

/**
 * The signed upload URL of a copy step's files (`PUT /e2b/template-files/{hash}?signature=`):
 * the SDK sends no API key there, so the signature (given with the link, to an API-key
 * holder) is the credential.
 */
export function e2bTemplateFilesRoute(builds: TemplateBuilds): Router {
  const r = express.Router();
  r.put('/:hash', (req: Request, res: Response, next: NextFunction) => {
    setErrorStyle(req, 'e2b');
    const signature = typeof req.query.signature === 'string' ? req.query.signature : '';
    builds
      .upload(String(req.params.hash), signature, req)
      .then((ok) => {
        if (!ok) return next(new ApiError(401, 'authentication_error', 'The upload URL is not one this service signed: ask for a new one.'));
        res.status(201).end();
      })
      .catch(next);
  });
  return r;
}
