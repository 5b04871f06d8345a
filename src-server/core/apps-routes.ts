import type { RouteRegistrar } from '../http/route.js';
import { App, AppSummary, FindAppBody } from '../contract/identity.js';
import type { AppsService } from './apps-service.js';

export function appsRoutes(r: RouteRegistrar, s: { apps: AppsService; diskUsage: (appId: string) => number }) {
  r.add({
    method: 'post',
    path: '/v1/apps/find',
    area: 'box',
    tag: 'apps',
    summary: 'Find an app by name, optionally creating it',
    body: FindAppBody,
    response: App,
    handler: ({ auth, body }) => {
      return s.apps.find(auth.orgId, body.name, body.mint_if_missing);
    },
  });

  r.add({
    method: 'get',
    path: '/v1/apps',
    area: 'box',
    tag: 'apps',
    summary: 'List apps with box counts and resources',
    handler: ({ auth }) => {
      const diskUsed = s.diskUsage;
      const data: AppSummary[] = s.apps.totals(auth.orgId).map((t) => ({ ...t, disk_used_bytes: diskUsed(t.app_id) }));
      return { data };
    },
  });
}
