import type { AreaModule, RouteRegistrar } from '../app-context.js';
import { Template, TemplateIdParams, TemplateList } from '../contract/templates.js';
import { TemplateService } from './template-service.js';

declare module '../app-context.js' {
  interface Services {
    templates: TemplateService;
  }
}

function templateRoutes(r: RouteRegistrar, svc: TemplateService) {
  r.add({
    method: 'get', path: '/v1/templates', area: 'box', tag: 'templates',
    summary: 'Warm templates boxes are cloned from: state, build progress, size on disk, boxes using each',
    response: TemplateList,
    handler: async () => ({ data: await svc.list() }),
  });
  r.add({
    method: 'get', path: '/v1/templates/:template_id', area: 'box', tag: 'templates', summary: 'Get a template',
    params: TemplateIdParams, response: Template,
    handler: ({ params }) => svc.get(params.template_id),
  });
  r.add({
    method: 'delete', path: '/v1/templates/:template_id', area: 'box', tag: 'templates',
    summary: 'Delete a template (409 while a box or checkpoint builds on it); the next create rebuilds it',
    params: TemplateIdParams, response: Template,
    handler: ({ params }) => svc.remove(params.template_id),
  });
}

/**
 * Templates: listing and deleting the runtime's warm templates; at start the default
 * image's template is prepared in the background (BOX_TEMPLATES=0 turns templates off).
 * Installed after the boxes area (it reads the box runtime).
 */
export const templatesModule: AreaModule = {
  name: 'templates',
  install(app, r) {
    const svc = new TemplateService(app.services.boxes?.runtime.templates);
    app.services.templates = svc;
    templateRoutes(r, svc);
  },
  start(app) {
    if (process.env.BOX_TEMPLATES === '0' || app.config.tuning.prepareTemplates === false) return;
    app.services.templates!.prepareDefault('debian', (m) => app.log.warn(m));
  },
};
