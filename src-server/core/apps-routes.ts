import type { RouteRegistrar } from '../app-context.js';
import { newId } from '../contract/common.js';
import { App, AppSummary, FindAppBody } from '../contract/identity.js';
import { notFound } from '../http/errors.js';

export function appsRoutes(r: RouteRegistrar) {
  r.add({
    method: 'post', path: '/v1/apps/find', area: 'box', tag: 'apps', summary: 'Find an app by name, optionally creating it',
    body: FindAppBody, response: App,
    handler: ({ auth, app, body }) => {
      const find = () =>
        app.db.prepare('SELECT id, name, created_at FROM apps WHERE org_id = ? AND name = ?').get(auth.orgId, body.name) as App | undefined;
      const found = find();
      if (found) return found;
      if (!body.mint_if_missing) throw notFound(`No app named "${body.name}"; pass mint_if_missing: true to create it.`, null, 'name');
      const row = { id: newId('app'), name: body.name, created_at: new Date().toISOString() };
      app.db
        .prepare('INSERT INTO apps (id, org_id, name, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (org_id, name) DO NOTHING')
        .run(row.id, auth.orgId, row.name, row.created_at);
      return find()!;
    },
  });

  r.add({
    method: 'get', path: '/v1/apps', area: 'box', tag: 'apps', summary: 'List apps with box counts and resources',
    handler: ({ auth, app }) => {
      const rows = app.db
        .prepare(
          `SELECT a.id AS app_id, a.name AS app_name,
             COUNT(b.id) AS box_count,
             SUM(b.status = 'running') AS running_count,
             SUM(b.status = 'paused') AS paused_count,
             SUM(b.status = 'sleeping') AS sleeping_count,
             SUM(b.status = 'failed') AS failed_count,
             SUM(CASE WHEN b.status = 'running' THEN b.vcpu_count ELSE 0 END) AS cpu_requested_vcpu,
             SUM(CASE WHEN b.status = 'running' THEN b.memory_mib * 1048576 ELSE 0 END) AS memory_requested_bytes
           FROM apps a LEFT JOIN boxes b ON b.app_id = a.id AND b.status != 'terminated'
           WHERE a.org_id = ? GROUP BY a.id ORDER BY a.created_at`,
        )
        .all(auth.orgId) as Record<string, number | string | null>[];
      const diskUsed = app.services.diskUsage;
      const data: AppSummary[] = rows.map((x) => ({
        app_id: String(x.app_id),
        app_name: String(x.app_name),
        box_count: Number(x.box_count ?? 0),
        running_count: Number(x.running_count ?? 0),
        paused_count: Number(x.paused_count ?? 0),
        sleeping_count: Number(x.sleeping_count ?? 0),
        failed_count: Number(x.failed_count ?? 0),
        cpu_requested_vcpu: Number(x.cpu_requested_vcpu ?? 0),
        memory_requested_bytes: Number(x.memory_requested_bytes ?? 0),
        disk_used_bytes: diskUsed(String(x.app_id)),
      }));
      return { data };
    },
  });
}
