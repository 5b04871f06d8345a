import { newId } from '../contract/common.js';
import type { App, AppSummary } from '../contract/identity.js';
import type { Db } from './connection.js';

/** Box counts and requested resources of one app (boxes that are not terminated); disk use comes from the runtime. */
type AppTotals = Omit<AppSummary, 'disk_used_bytes'>;

/** The `apps` table (core area): named groups of boxes. */
export class AppsRepo {
  constructor(private db: Db) {}

  async byName(orgId: string, name: string): Promise<App | undefined> {
    return (await this.db.get('SELECT id, name, created_at FROM apps WHERE org_id = ? AND name = ?', [orgId, name])) as App | undefined;
  }

  async exists(orgId: string, appId: string): Promise<boolean> {
    return (await this.db.get('SELECT id FROM apps WHERE id = ? AND org_id = ?', [appId, orgId])) !== undefined;
  }

  /** The app named `name`, created if missing; a concurrent creation of the same name yields one app. */
  async mint(orgId: string, name: string): Promise<App> {
    await this.db.run('INSERT INTO apps (id, org_id, name, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (org_id, name) DO NOTHING', [
      newId('app'),
      orgId,
      name,
      new Date().toISOString(),
    ]);
    return (await this.byName(orgId, name))!;
  }

  /** Every app of the organization, oldest first, with the totals of its live boxes (read from `boxes`). */
  async totals(orgId: string): Promise<AppTotals[]> {
    const rows = (await this.db.all(
      `SELECT a.id AS app_id, a.name AS app_name,
           COUNT(b.id) AS box_count,
           SUM(CASE WHEN b.status = 'running' THEN 1 ELSE 0 END) AS running_count,
           SUM(CASE WHEN b.status = 'paused' THEN 1 ELSE 0 END) AS paused_count,
           SUM(CASE WHEN b.status = 'sleeping' THEN 1 ELSE 0 END) AS sleeping_count,
           SUM(CASE WHEN b.status = 'failed' THEN 1 ELSE 0 END) AS failed_count,
           SUM(CASE WHEN b.status = 'running' THEN b.vcpu_count ELSE 0 END) AS cpu_requested_vcpu,
           SUM(CASE WHEN b.status = 'running' THEN b.memory_mib * 1048576 ELSE 0 END) AS memory_requested_bytes
         FROM apps a LEFT JOIN boxes b ON b.app_id = a.id AND b.status != 'terminated'
         WHERE a.org_id = ? GROUP BY a.id ORDER BY a.created_at`,
      [orgId],
    )) as Record<string, number | string | null>[];
    return rows.map((x) => ({
      app_id: String(x.app_id),
      app_name: String(x.app_name),
      box_count: Number(x.box_count ?? 0),
      running_count: Number(x.running_count ?? 0),
      paused_count: Number(x.paused_count ?? 0),
      sleeping_count: Number(x.sleeping_count ?? 0),
      failed_count: Number(x.failed_count ?? 0),
      cpu_requested_vcpu: Number(x.cpu_requested_vcpu ?? 0),
      memory_requested_bytes: Number(x.memory_requested_bytes ?? 0),
    }));
  }
}
