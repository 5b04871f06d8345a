import type { Db } from './connection.js';
import { ServiceSettings } from '../contract/service-admin.js';

const DEFAULTS: ServiceSettings = { on_quit: 'ask' };

/** The only SQL on service_settings: one JSON value per setting, defaults for the missing ones. */
export class ServiceSettingsRepo {
  constructor(private db: Db) {}

  async get(): Promise<ServiceSettings> {
    const rows = (await this.db.all('SELECT key, value FROM service_settings')) as { key: string; value: string }[];
    const stored = Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));
    // A value a later version no longer knows falls back to its default rather than failing reads.
    const parsed = ServiceSettings.safeParse({ ...DEFAULTS, ...stored });
    return parsed.success ? parsed.data : DEFAULTS;
  }

  async set(patch: Partial<ServiceSettings>): Promise<ServiceSettings> {
    const now = new Date().toISOString();
    const put =
      'INSERT INTO service_settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at';
    await this.db.transaction(async () => {
      for (const [k, v] of Object.entries(patch)) if (v !== undefined) await this.db.run(put, [k, JSON.stringify(v), now]);
    });
    return await this.get();
  }
}
