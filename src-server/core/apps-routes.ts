import type { RouteRegistrar } from '../http/route.js';
import { App, AppSummary, FindAppBody } from '../contract/identity.js';
import type { AppsService } from './apps-service.js';

export function appsRoutes(r: RouteRegistrar, s: { apps: AppsService; diskUsage: (appId: string) => Promise<number> }) {
  r.add({
    method: 'post',
    path: '/v1/apps/find',
    area: 'box',
    tag: 'apps',
    summary: 'Find an app by name, optionally creating it',
    body: FindAppBody,
    response: App,
    handler: async ({ auth, body }) => {
      return await s.apps.find(auth.orgId, body.name, body.mint_if_missing);
    },
  });

  r.add({
    method: 'get',
    path: '/v1/apps',
    area: 'box',
    tag: 'apps',
    summary: 'List apps with box counts and resources',
    handler: async ({ auth }) => {
      const diskUsed = s.diskUsage;
      const data: AppSummary[] = await Promise.all((await s.apps.totals(auth.orgId)).map(async (t) => ({ ...t, disk_used_bytes: await diskUsed(t.app_id) })));
      return { data };
    },
  });
}
