import type { RouteRegistrar } from '../app-context.js';
import { App, AppSummary, FindAppBody } from '../contract/identity.js';

export function appsRoutes(r: RouteRegistrar) {
  r.add({
    method: 'post',
    path: '/v1/apps/find',
    area: 'box',
    tag: 'apps',
    summary: 'Find an app by name, optionally creating it',
    body: FindAppBody,
    response: App,
    handler: ({ auth, app, body }) => {
      return app.services.apps.find(auth.orgId, body.name, body.mint_if_missing);
    },
  });

  r.add({
    method: 'get',
    path: '/v1/apps',
    area: 'box',
    tag: 'apps',
    summary: 'List apps with box counts and resources',
    handler: ({ auth, app }) => {
      const diskUsed = app.services.diskUsage;
      const data: AppSummary[] = app.services.apps.totals(auth.orgId).map((t) => ({ ...t, disk_used_bytes: diskUsed(t.app_id) }));
      return { data };
    },
  });
}
