import type { Db } from '../../db/connection.js';

/** The only SQL on inference_settings: small JSON values by key. */
export class InferenceSettingsRepo {
  constructor(private db: Db) {}

  async get<T>(key: string, fallback: T): Promise<T> {
    const r = (await this.db.get('SELECT value FROM inference_settings WHERE key = ?', [key])) as { value: string } | undefined;
    return r ? (JSON.parse(r.value) as T) : fallback;
  }

  async set(key: string, value: unknown): Promise<void> {
    await this.db.run('INSERT INTO inference_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
      key,
      JSON.stringify(value),
    ]);
  }
}
