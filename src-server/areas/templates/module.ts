import type { AppBase } from '../../platform/app-context.js';
import type { Area } from '../../platform/area.js';
import type { TemplatePort } from '../boxes/ports.js';
import { TemplateService } from './template-service.js';
import { templateRoutes } from './template-routes.js';

/**
 * Templates: listing and deleting the runtime's warm templates (machine-wide, like the
 * guest image). At start the default image's template for the default size is prepared
 * in the background, unless BOX_TEMPLATES=0 or tuning `prepareTemplates: false`.
 */
export function templatesArea(app: AppBase, deps: { templates: TemplatePort | undefined }) {
  const templates = new TemplateService(deps.templates);
  let stopping = false;
  const area: Area = {
    name: 'templates',
    routes: (r) => templateRoutes(r, templates),
    start() {
      if (app.config.env.templates === false || !app.config.tuning.prepareTemplates) return;
      // a build the service's stop ends (its VM killed) is no failure to warn about
      templates.prepareDefault('debian', (m) => app.log[stopping ? 'info' : 'warn'](m));
    },
    stop() {
      stopping = true;
    },
  };
  return { templates, area };
}
export type { TemplateService } from './template-service.js';
