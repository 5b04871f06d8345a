import type { RouteRegistrar } from '../app-context.js';
import { App, AppSummary, FindAppBody } from '../contract/identity.js';
import { notFound } from '../http/errors.js';

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
      const found = app.repos.apps.byName(auth.orgId, body.name);
      if (found) return found;
      if (!body.mint_if_missing) throw notFound(`No app named "${body.name}"; pass mint_if_missing: true to create it.`, null, 'name');
      return app.repos.apps.mint(auth.orgId, body.name);
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
      const data: AppSummary[] = app.repos.apps.totals(auth.orgId).map((t) => ({ ...t, disk_used_bytes: diskUsed(t.app_id) }));
      return { data };
    },
  });
}
