import type { RouteRegistrar } from '../http/route.js';
import { PatchServiceSettings, QuitPlan, QuitPlanQuery, ServiceSettings } from '../contract/service-admin.js';
import type { QuitService } from './quit-service.js';

export function quitRoutes(r: RouteRegistrar, quit: QuitService) {
  r.add({
    method: 'get',
    path: '/v1/service/settings',
    area: 'box',
    tag: 'service',
    response: ServiceSettings,
    summary: 'Service settings: on_quit, what quitting does to running boxes (ask, stop_boxes, leave_running)',
    handler: async () => await quit.settings.get(),
  });
  r.add({
    method: 'patch',
    path: '/v1/service/settings',
    area: 'box',
    tag: 'service',
    body: PatchServiceSettings,
    response: ServiceSettings,
    summary: 'Change service settings; answers them all',
    handler: async ({ body }) => await quit.settings.set(body),
  });
  r.add({
    method: 'get',
    path: '/v1/service/quit-plan',
    area: 'box',
    tag: 'service',
    query: QuitPlanQuery,
    response: QuitPlan,
    summary: 'What quitting the service would do now with the running boxes (the tray, the UI and the headless banner say it)',
    handler: async ({ query }) => await quit.plan(query.where),
  });
}
