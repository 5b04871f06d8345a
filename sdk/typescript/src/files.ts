import type { Http, UploadBody } from './http.js';
import { op } from './ops.js';
import type { DeletedPath, DirectoryListing, FileWriteResult, VolumeEntry } from './types.js';

export interface WriteOptions {
  /** Octal mode such as '0644' or 0o644 (default 0644). */
  mode?: string | number;
  /** Create missing parent directories (default true). */
  createParents?: boolean;
  signal?: AbortSignal;
}

const modeText = (m: string | number | undefined) => (m === undefined ? undefined : typeof m === 'number' ? m.toString(8).padStart(4, '0') : m);

/** Files inside a running box: bytes, text and streams both ways. */
export class BoxFiles {
  /** @internal */
  constructor(
    private readonly http: Http,
    private readonly boxId: string,
  ) {}

  private get base() {
    return `/v1/boxes/${encodeURIComponent(this.boxId)}`;
  }

  /** Writes a file: text (UTF-8), bytes, a Blob, or a stream (web ReadableStream or any async iterable of bytes, e.g. fs.createReadStream). */
  write(path: string, data: UploadBody, o: WriteOptions = {}): Promise<FileWriteResult> {
    const body = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    return this.http.json('PUT', `${this.base}/files`, {
      query: { path, mode: modeText(o.mode), create_parents: o.createParents === undefined ? undefined : String(o.createParents) },
      body,
      signal: o.signal,
    });
  }

  /** The file's bytes. */
  async read(path: string, o: { signal?: AbortSignal } = {}): Promise<Uint8Array> {
    const res = await this.http.request('GET', `${this.base}/files`, { query: { path }, signal: o.signal });
    return new Uint8Array(await res.arrayBuffer());
  }

  /** The file as UTF-8 text. */
  async readText(path: string, o: { signal?: AbortSignal } = {}): Promise<string> {
    return new TextDecoder().decode(await this.read(path, o));
  }

  /** The file as a web ReadableStream of bytes, read as it downloads (`Readable.fromWeb` makes a Node stream of it). */
  async readStream(path: string, o: { signal?: AbortSignal } = {}): Promise<ReadableStream<Uint8Array>> {
    const res = await this.http.request('GET', `${this.base}/files`, { query: { path }, signal: o.signal });
    return res.body ?? new ReadableStream({ start: (c) => c.close() });
  }

  /** The entries of a directory (default /). */
  async list(path = '/'): Promise<VolumeEntry[]> {
    return (await this.http.json<DirectoryListing>('GET', `${this.base}/directories`, { query: { path } })).entries;
  }

  /** Creates a folder (and missing parents); ConflictError when something is already there. */
  mkdir(path: string): Promise<VolumeEntry> {
    return op(this.http, 'POST /v1/boxes/:box_id/directories', { params: { box_id: this.boxId }, body: { path } });
  }

  /** Deletes a file, a link (not its target) or an empty folder; `recursive` deletes a folder with its contents. */
  remove(path: string, o: { recursive?: boolean } = {}): Promise<DeletedPath> {
    return op(this.http, 'DELETE /v1/boxes/:box_id/paths', { params: { box_id: this.boxId }, query: { path, recursive: o.recursive ? 'true' : undefined } });
  }

  /** Renames or moves a path inside the box; ConflictError when `to` exists. */
  move(from: string, to: string): Promise<VolumeEntry> {
    return op(this.http, 'POST /v1/boxes/:box_id/paths/move', { params: { box_id: this.boxId }, body: { from, to } });
  }
}
