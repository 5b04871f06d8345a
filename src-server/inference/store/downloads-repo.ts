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

  create(id: string, url: string, name: string, at: number): void {
    this.db
      .prepare(`INSERT INTO inference_downloads (id, url, name, status, created_at, updated_at) VALUES (?, ?, ?, 'running', ?, ?)`)
      .run(id, url, name, at, at);
  }

  progress(id: string, done: number, total: number | null, at: number): void {
    this.db.prepare('UPDATE inference_downloads SET bytes_done = ?, bytes_total = ?, updated_at = ? WHERE id = ?').run(done, total, at, id);
  }

  finish(id: string, outcome: { modelId: string } | { error: string }, at: number): void {
    this.db
      .prepare('UPDATE inference_downloads SET status = ?, model_id = ?, error = ?, updated_at = ? WHERE id = ?')
      .run('modelId' in outcome ? 'completed' : 'failed', 'modelId' in outcome ? outcome.modelId : null, 'error' in outcome ? outcome.error : null, at, id);
  }

  get(id: string): DownloadJob | undefined {
    const r = this.db.prepare('SELECT * FROM inference_downloads WHERE id = ?').get(id) as Row | undefined;
    return r && toJob(r);
  }

  list(): DownloadJob[] {
    return (this.db.prepare('SELECT * FROM inference_downloads ORDER BY created_at DESC LIMIT 100').all() as Row[]).map(toJob);
  }

  /** Downloads cut off by a restart are failed (the partial file is discarded). */
  failRunning(at: number): void {
    this.db
      .prepare(`UPDATE inference_downloads SET status = 'failed', error = 'interrupted by a service restart', updated_at = ? WHERE status = 'running'`)
      .run(at);
  }
}
