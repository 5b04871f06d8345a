import type { Db } from '../../db/connection.js';

/** The only SQL on inference_settings: small JSON values by key. */
export class InferenceSettingsRepo {
  constructor(private db: Db) {}

  get<T>(key: string, fallback: T): T {
    const r = this.db.prepare('SELECT value FROM inference_settings WHERE key = ?').get(key) as { value: string } | undefined;
    return r ? (JSON.parse(r.value) as T) : fallback;
  }

  set(key: string, value: unknown): void {
    this.db
      .prepare('INSERT INTO inference_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
      .run(key, JSON.stringify(value));
  }
}
