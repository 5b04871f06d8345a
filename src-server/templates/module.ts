import type { AppBase, Area, RouteRegistrar } from '../app-context.js';
import type { TemplatePort } from '../boxes/runtime-port.js';
import { Template, TemplateIdParams, TemplateList } from '../contract/templates.js';
import { TemplateService } from './template-service.js';

function templateRoutes(r: RouteRegistrar, svc: TemplateService) {
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

/**
 * Templates: listing and deleting the runtime's warm templates (machine-wide, like the
 * guest image). At start the default image's template for the default size is prepared
 * in the background, unless BOX_TEMPLATES=0 or tuning `prepareTemplates: false`.
 */
export function templatesArea(app: AppBase, deps: { templates: TemplatePort | undefined }) {
  const templates = new TemplateService(deps.templates);
  const area: Area = {
    name: 'templates',
    routes: (r) => templateRoutes(r, templates),
    start() {
      if (process.env.BOX_TEMPLATES === '0' || app.config.tuning.prepareTemplates === false) return;
      templates.prepareDefault('debian', (m) => app.log.warn(m));
    },
  };
  return { templates, area };
}
