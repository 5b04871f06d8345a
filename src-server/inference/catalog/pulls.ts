import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../../app-context.js';
import { invalid, conflict, notFound } from '../../core/domain-errors.js';
import { isGguf, MODEL_NAME, nameFromFile, type ModelFiles } from '../engines/local/model-files.js';
import type { CatalogEntry } from './catalog.js';
import type { PullRow, PullsRepo } from './pulls-repo.js';

const PROGRESS_EVERY_MS = 250;

/** The public download object (ours, beyond the spec: contract/routes.ts). */
const pullView = (r: PullRow) => ({
  id: r.id,
  object: 'model.pull' as const,
  state: r.state,
  catalog_id: r.catalog_id,
  url: r.url,
  name: r.name,
  model_id: r.state === 'completed' ? `local/${r.name}` : null,
  bytes_done: r.bytes_done,
  bytes_total: r.bytes_total,
  sha256: r.sha256,
  error: r.error,
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
});
type PullView = ReturnType<typeof pullView>;

/**
 * Catalog (or URL) model pulls into `<models>/.pulls/<id>.part`. Survives restarts: on
 * start every unfinished pull resumes from the bytes on disk with an HTTP Range request
 * (a server that ignores Range answers 200 and the pull starts over). When the bytes are
 * in, the whole file is hashed; a catalog, caller or publisher (publishedSha256) checksum
 * must match, else the pull fails and the file is deleted. Cancel aborts and deletes the partial file.
 */
export class ModelPulls {
  private running = new Map<string, AbortController>();
  private dir: string;

  constructor(
    private files: ModelFiles,
    private repo: PullsRepo,
    readonly catalog: CatalogEntry[],
    private log: Logger,
  ) {
    this.dir = path.join(files.dir, '.pulls');
  }

  async start(): Promise<void> {
    for (const r of await this.repo.unfinished()) await this.launch(r);
  }

  stop(): void {
    for (const ctl of this.running.values()) ctl.abort();
  }

  async begin(req: { catalog_id?: string; url?: string; name?: string | null; sha256?: string | null }): Promise<PullView> {
    const entry = req.catalog_id !== undefined ? this.catalog.find((c) => c.id === req.catalog_id) : undefined;
    if (req.catalog_id !== undefined && !entry)
      throw notFound(`No catalog model "${req.catalog_id}"; GET /v1/local-models/catalog lists them.`, null, 'catalog_id');
    const url = entry?.source_url ?? req.url!;
    const name = req.name ?? entry?.name ?? nameFromFile(decodeURIComponent(new URL(url).pathname.split('/').pop() || 'model'));
    if (!MODEL_NAME.test(name)) throw invalid(`Cannot name a model "${name}": use 1-128 letters, digits, ".", "_" or "-".`, 'name');
    if (this.files.has(name)) throw conflict(`A local model named "${name}" already exists.`, 'already_exists', 'name');
    if ((await this.repo.unfinished()).some((r) => r.name === name)) throw conflict(`A pull of "${name}" is already running.`, 'already_running', 'name');
    const row = {
      id: `pull_${randomUUID().replaceAll('-', '')}`,
      catalog_id: entry?.id ?? null,
      url,
      name,
      sha256: req.sha256 ?? entry?.sha256 ?? null,
      created_at: Date.now(),
    };
    await this.repo.create(row);
    const created = (await this.repo.get(row.id))!;
    await this.launch(created);
    return pullView(created);
  }

  async get(id: string): Promise<PullView | undefined> {
    const r = await this.repo.get(id);
    return r && pullView(r);
  }

  async list(): Promise<PullView[]> {
    return (await this.repo.list()).map(pullView);
  }

  async cancel(id: string): Promise<PullView> {
    const r = await this.repo.get(id);
    if (!r) throw notFound(`No model pull ${id}.`, null, 'pull_id');
    if (await this.repo.set(id, 'cancelled', { error: 'cancelled' })) {
      this.running.get(id)?.abort();
      fs.rmSync(this.partOf(id), { force: true });
    }
    return pullView((await this.repo.get(id))!);
  }

  /** Resolves when the pull is no longer running (tests). */
  async settled(id: string): Promise<void> {
    while (this.running.has(id)) await new Promise((r) => setTimeout(r, 20));
  }

  private partOf(id: string): string {
    return path.join(this.dir, `${id}.part`);
  }

  private async launch(r: PullRow): Promise<void> {
    const ctl = new AbortController();
    this.running.set(r.id, ctl);
    void this.run(r, ctl.signal).finally(() => this.running.delete(r.id));
  }

  private async run(pull: PullRow, signal: AbortSignal): Promise<void> {
    let r = pull;
    fs.mkdirSync(this.dir, { recursive: true });
    const part = this.partOf(r.id);
    try {
      let have = fs.existsSync(part) ? fs.statSync(part).size : 0;
      if (!r.sha256) {
        const published = await publishedSha256(r.url, signal);
        if (published && (await this.repo.expect(r.id, published))) r = { ...r, sha256: published };
      }
      const res = await fetch(r.url, { signal, headers: have > 0 ? { range: `bytes=${have}-` } : {} });
      if (res.status === 416 && have > 0) {
        // Everything is already on disk.
      } else if (!res.ok || !res.body) {
        throw new Error(`the server answered HTTP ${res.status}`);
      } else {
        if (res.status !== 206) have = 0; // Range ignored: start over
        const rest = Number(res.headers.get('content-length'));
        const total = Number.isFinite(rest) && res.headers.has('content-length') ? have + rest : r.bytes_total;
        let done = have;
        // Progress is written at most every PROGRESS_EVERY_MS, and once more after a pause
        // (a stalled transfer still shows the bytes it got).
        let trailing: NodeJS.Timeout | undefined;
        const write = async () => {
          trailing = undefined;
          await this.repo.progress(r.id, done, total);
        };
        const count = new Transform({
          transform: (chunk: Buffer, _e, cb) => {
            done += chunk.length;
            trailing ??= setTimeout(write, PROGRESS_EVERY_MS);
            cb(null, chunk);
          },
        });
        try {
          await pipeline(Readable.fromWeb(res.body as never), count, fs.createWriteStream(part, { flags: have > 0 ? 'a' : 'w' }), { signal });
        } finally {
          clearTimeout(trailing);
        }
        await this.repo.progress(r.id, done, total);
        if (total !== null && done !== total) throw new Error(`the download ended after ${done} of ${total} bytes`);
      }
      await this.repo.set(r.id, 'verifying');
      const sum = await sha256Of(part);
      if (r.sha256 && sum !== r.sha256) throw new Error(`checksum mismatch: expected sha256 ${r.sha256}, got ${sum}; the file was discarded`);
      if (!isGguf(part)) throw new Error('the file is not a GGUF model');
      fs.renameSync(part, this.files.fileOf(r.name));
      await this.repo.set(r.id, 'completed', { sha256: sum });
    } catch (e) {
      if (signal.aborted) return; // stopped (resumes at next start) or cancelled (already recorded)
      const message = pullFailure(e, r.url);
      // A checksum or format failure discards the bytes; a network failure keeps them for a retry.
      if (/checksum|GGUF/.test(message)) fs.rmSync(part, { force: true });
      await this.repo.set(r.id, 'failed', { error: message });
      this.log.warn(`inference: model pull ${r.id} failed: ${message}`);
    }
  }
}

/**
 * A failed download in words that lead somewhere: the host, and for a network failure what
 * it likely means (this machine offline, the host unreachable), with the bytes kept for a retry.
 */
export function pullFailure(e: unknown, url: string): string {
  const err = e as Error & { cause?: { code?: string } };
  const code = err.cause?.code;
  const host = (() => {
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  })();
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `Could not look up ${host} (${code}): this machine seems to be offline or without DNS. Download again once it is online; the bytes so far are kept.`;
  if (
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'ETIMEDOUT' ||
    code === 'ENETUNREACH' ||
    code === 'EHOSTUNREACH' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  )
    return `Could not reach ${host} (${code}): check this machine's network or proxy. Download again to resume; the bytes so far are kept.`;
  if (/^the server answered/.test(err.message)) return `${host}: ${err.message}.`;
  return code ? `${err.message} (${code}, ${host})` : err.message;
}

/**
 * The checksum the publisher advertises for the file, if any: Hugging Face answers a
 * `resolve` URL of a large (LFS/Xet) file with a redirect carrying `X-Linked-Etag: "<sha256>"`
 * (small files carry a 40-hex git sha1 there, which is not a content checksum and is
 * ignored). A catalog entry without a sha256 is then still verified against its
 * publisher; a server that advertises nothing leaves the pull computing and reporting it.
 */
async function publishedSha256(url: string, signal: AbortSignal): Promise<string | undefined> {
  try {
    const res = await fetch(url, { method: 'HEAD', redirect: 'manual', signal });
    const tag = (res.headers.get('x-linked-etag') ?? '').replace(/^W\//, '').replaceAll('"', '').toLowerCase();
    return /^[0-9a-f]{64}$/.test(tag) ? tag : undefined;
  } catch {
    return undefined; // no HEAD, no checksum: the download itself reports a real failure
  }
}

async function sha256Of(file: string): Promise<string> {
  const h = createHash('sha256');
  await pipeline(fs.createReadStream(file), h);
  return h.digest('hex');
}
