import type { RouteRegistrar } from '../../platform/http/route.js';
import { Template, TemplateIdParams, TemplateList } from '@box/contract/templates';
import type { TemplateService } from './template-service.js';

/** Warm templates: list, get, delete. */
export function templateRoutes(r: RouteRegistrar, svc: TemplateService) {
  r.add({
    method: 'get',
    path: '/v1/templates',
    area: 'box',
    tag: 'templates',
    summary: 'Warm templates boxes are cloned from: state, build progress, size on disk, boxes using each',
    response: TemplateList,
    handler: async () => ({ data: await svc.list() }),
  });
  r.add({
    method: 'get',
    path: '/v1/templates/:template_id',
    area: 'box',
    tag: 'templates',
    summary: 'Get a template',
    params: TemplateIdParams,
    response: Template,
    handler: ({ params }) => svc.get(params.template_id),
  });
  r.add({
    method: 'delete',
    path: '/v1/templates/:template_id',
    area: 'box',
    tag: 'templates',
    summary: 'Delete a template (409 while a box or checkpoint builds on it); the next create rebuilds it',
    params: TemplateIdParams,
    response: Template,
    handler: ({ params }) => svc.remove(params.template_id),
  });
}
