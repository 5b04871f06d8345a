import type { DownloadJob } from '../../contract/inference.js';
import type { Db } from '../../db/connection.js';

interface Row {
  id: string;
  url: string;
  name: string;
  status: DownloadJob['status'];
  bytes_done: number;
  bytes_total: number | null;
  model_id: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
}

const toJob = (r: Row): DownloadJob => ({
  ...r,
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
});

/** The only SQL on inference_downloads. */
export class DownloadsRepo {
  constructor(private db: Db) {}

  async create(id: string, url: string, name: string, at: number): Promise<void> {
    await this.db.run(`INSERT INTO inference_downloads (id, url, name, status, created_at, updated_at) VALUES (?, ?, ?, 'running', ?, ?)`, [
      id,
      url,
      name,
      at,
      at,
    ]);
  }

  async progress(id: string, done: number, total: number | null, at: number): Promise<void> {
    await this.db.run('UPDATE inference_downloads SET bytes_done = ?, bytes_total = ?, updated_at = ? WHERE id = ?', [done, total, at, id]);
  }

  async finish(id: string, outcome: { modelId: string } | { error: string }, at: number): Promise<void> {
    await this.db.run('UPDATE inference_downloads SET status = ?, model_id = ?, error = ?, updated_at = ? WHERE id = ?', [
      'modelId' in outcome ? 'completed' : 'failed',
      'modelId' in outcome ? outcome.modelId : null,
      'error' in outcome ? outcome.error : null,
      at,
      id,
    ]);
  }

  async get(id: string): Promise<DownloadJob | undefined> {
    const r = (await this.db.get('SELECT * FROM inference_downloads WHERE id = ?', [id])) as Row | undefined;
    return r && toJob(r);
  }

  async list(): Promise<DownloadJob[]> {
    return ((await this.db.all('SELECT * FROM inference_downloads ORDER BY created_at DESC LIMIT 100')) as Row[]).map(toJob);
  }

  /** Downloads cut off by a restart are failed (the partial file is discarded). */
  async failRunning(at: number): Promise<void> {
    await this.db.run(`UPDATE inference_downloads SET status = 'failed', error = 'interrupted by a service restart', updated_at = ? WHERE status = 'running'`, [
      at,
    ]);
  }
}
