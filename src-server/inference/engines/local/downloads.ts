import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DownloadJob } from '../../../contract/inference.js';
import { invalid } from '../../../core/domain-errors.js';
import type { DownloadsRepo } from '../../store/downloads-repo.js';
import { isGguf, MODEL_NAME, nameFromFile, type ModelFiles } from './model-files.js';

const PROGRESS_EVERY_MS = 250;

/**
 * Downloads GGUF models by URL into `<models>/.partial/`, then moves them into the
 * models folder. Progress is persisted (GET .../downloads/{id}); the job answers at once.
 */
export class ModelDownloads {
  private running = new Map<string, AbortController>();
  private partialDir: string;

  constructor(
    private files: ModelFiles,
    private repo: DownloadsRepo,
  ) {
    this.partialDir = path.join(files.dir, '.partial');
  }

  async start(): Promise<void> {
    await this.repo.failRunning(Date.now());
    fs.rmSync(this.partialDir, { recursive: true, force: true });
  }

  async begin(url: string, name?: string | null): Promise<DownloadJob> {
    const modelName = name ?? nameFromFile(decodeURIComponent(new URL(url).pathname.split('/').pop() || 'model'));
    if (!MODEL_NAME.test(modelName)) throw invalid(`Cannot name a model "${modelName}".`, 'name');
    const id = `dl_${randomUUID()}`;
    await this.repo.create(id, url, modelName, Date.now());
    const ctl = new AbortController();
    this.running.set(id, ctl);
    void this.run(id, url, modelName, ctl.signal).finally(() => this.running.delete(id));
    return (await this.repo.get(id))!;
  }

  private async run(id: string, url: string, name: string, signal: AbortSignal): Promise<void> {
    fs.mkdirSync(this.partialDir, { recursive: true });
    const tmp = path.join(this.partialDir, `${id}.gguf`);
    try {
      const res = await fetch(url, { signal });
      if (!res.ok || !res.body) throw new Error(`the server answered HTTP ${res.status}`);
      const total = Number(res.headers.get('content-length')) || null;
      let done = 0;
      let last = 0;
      const counted = Readable.fromWeb(res.body as never).on('data', async (chunk: Buffer) => {
        done += chunk.length;
        if (Date.now() - last >= PROGRESS_EVERY_MS) {
          last = Date.now();
          await this.repo.progress(id, done, total, last);
        }
      });
      await pipeline(counted, fs.createWriteStream(tmp), { signal });
      await this.repo.progress(id, done, total, Date.now());
      if (total !== null && done !== total) throw new Error(`the download ended after ${done} of ${total} bytes`);
      if (!isGguf(tmp)) throw new Error('the file is not a GGUF model');
      fs.renameSync(tmp, this.files.fileOf(name));
      await this.repo.finish(id, { modelId: `local/${name}` }, Date.now());
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      const err = e as Error & { cause?: { code?: string } };
      if (!signal.aborted) await this.repo.finish(id, { error: err.cause?.code ? `${err.message} (${err.cause.code})` : err.message }, Date.now());
    }
  }

  async get(id: string): Promise<DownloadJob | undefined> {
    return await this.repo.get(id);
  }

  async list(): Promise<DownloadJob[]> {
    return await this.repo.list();
  }

  stop(): void {
    for (const ctl of this.running.values()) ctl.abort();
  }
}
