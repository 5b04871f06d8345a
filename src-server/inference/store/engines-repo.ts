import type { Db } from '../../db/connection.js';
import type { CryptoBox } from '../../util/crypto-box.js';

export interface UpstreamRow {
  name: string;
  kind: 'openai' | 'anthropic';
  baseUrl: string;
  apiKey: string | null;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  name: string;
  kind: 'openai' | 'anthropic';
  base_url: string;
  api_key_sealed: Buffer | null;
  created_at: number;
  updated_at: number;
}

/** The only SQL on inference_engines; API keys are sealed at rest (util/crypto-box). */
export class EnginesRepo {
  constructor(
    private db: Db,
    private box: CryptoBox,
  ) {}

  async list(): Promise<UpstreamRow[]> {
    const rows = (await this.db.all('SELECT * FROM inference_engines ORDER BY name')) as Row[];
    return rows.map((r) => ({
      name: r.name,
      kind: r.kind,
      baseUrl: r.base_url,
      apiKey: r.api_key_sealed ? this.box.openString(r.api_key_sealed) : null,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    }));
  }

  async get(name: string): Promise<UpstreamRow | undefined> {
    return (await this.list()).find((r) => r.name === name);
  }

  /** Creates or replaces an engine; `apiKey` undefined keeps the stored key. */
  async upsert(e: { name: string; kind: 'openai' | 'anthropic'; baseUrl: string; apiKey?: string | null }, at: number): Promise<void> {
    const sealed = e.apiKey === undefined ? undefined : e.apiKey === null ? null : this.box.seal(e.apiKey);
    await this.db.run(
      `INSERT INTO inference_engines (name, kind, base_url, api_key_sealed, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET kind = excluded.kind, base_url = excluded.base_url, updated_at = excluded.updated_at
         ${sealed === undefined ? '' : ', api_key_sealed = excluded.api_key_sealed'}`,
      [e.name, e.kind, e.baseUrl, sealed ?? null, at, at],
    );
  }

  async delete(name: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM inference_engines WHERE name = ?', [name])).changes === 1;
  }
}
