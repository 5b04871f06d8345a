import { Box } from './box.js';
import { Embeddings } from './embeddings.js';
import type { UploadBody } from './http.js';
import { Http, type ClientOptions } from './http.js';
import { op } from './ops.js';
import type {
  BoxInfo,
  BoxStatus,
  Checkpoint,
  CreateBoxBody,
  CreatePolicyBody,
  CronJob,
  DeletedPath,
  FileWriteResult,
  HttpPolicy,
  Inbox,
  InboxDelivery,
  LineageEdge,
  PatchPolicyBody,
  PolicyPreset,
  Volume,
  VolumeEntry,
  Whoami,
} from './types.js';
import { NotFoundError, BoxError } from './errors.js';

const BOX_ID = /^box_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One page of a list. */
export interface Page<T> {
  data: T[];
  limit: number;
  offset: number;
  total: number;
  has_more: boolean;
}

/** What `boxes.create` takes: the API's body, with `app` (an app's name or id) instead of `app_id`. */
export type CreateBoxOptions = Omit<CreateBoxBody, 'app_id'> & {
  /** The app the box belongs to, by name or id (default "default"; a name is created if missing). */
  app?: string;
  /** Sent as Idempotency-Key: a retry with the same key answers the same box (default: a fresh key, reused by the SDK's own retries). */
  idempotencyKey?: string;
  signal?: AbortSignal;
};

export class Boxes {
  /** @internal */
  constructor(private readonly http: Http) {}

  /** Creates a box and answers once it runs (the first create on a machine waits for the guest image). */
  async create(o: CreateBoxOptions): Promise<Box> {
    const { app, idempotencyKey, signal, ...rest } = o;
    const app_id = await appId(this.http, app ?? 'default');
    const info = await op(this.http, 'POST /v1/boxes', { body: { ...rest, app_id }, idempotencyKey: idempotencyKey ?? crypto.randomUUID(), signal });
    return new Box(this.http, info);
  }

  /** A box by id, or by name among the live boxes (NotFoundError when none; an error naming the ids when several share it). */
  async get(ref: string): Promise<Box> {
    if (BOX_ID.test(ref)) return new Box(this.http, await op(this.http, 'GET /v1/boxes/:box_id', { params: { box_id: ref } }));
    const found: BoxInfo[] = [];
    for await (const b of this.iterate({ search: ref })) if (b.name === ref && b.status !== 'terminated') found.push(b.info);
    if (found.length === 1) return new Box(this.http, found[0]!);
    if (found.length > 1) throw new BoxError(`${found.length} boxes are named "${ref}": ${found.map((b) => b.box_id).join(', ')}; use the id`);
    throw new NotFoundError(
      404,
      { message: `No box named "${ref}".`, type: 'not_found_error', param: 'name', code: null },
      new Headers(),
      `GET /v1/boxes?search=${ref}`,
    );
  }

  /** One page of boxes (newest first), filtered by app, status or a name search. */
  async list(o: { app?: string; status?: BoxStatus; search?: string; limit?: number; offset?: number } = {}): Promise<Page<Box>> {
    const { app, ...rest } = o;
    const query = { ...rest, app_id: app ? await appId(this.http, app, false) : undefined };
    const page = await op(this.http, 'GET /v1/boxes', { query });
    return { ...page, data: page.data.map((b) => new Box(this.http, b)) };
  }

  /** Every box matching, page after page. */
  async *iterate(o: { app?: string; status?: BoxStatus; search?: string } = {}): AsyncGenerator<Box> {
    for (let offset = 0; ; offset += 100) {
      const page = await this.list({ ...o, limit: 100, offset });
      yield* page.data;
      if (!page.has_more) return;
    }
  }
}

async function appId(http: Http, ref: string, create = true): Promise<string> {
  if (/^app_[0-9a-f-]{36}$/i.test(ref)) return ref;
  return (await op(http, 'POST /v1/apps/find', { body: { name: ref, mint_if_missing: create } })).id;
}

export class Checkpoints {
  /** @internal */
  constructor(private readonly http: Http) {}
  async list(o: { boxId?: string; name?: string } = {}): Promise<Checkpoint[]> {
    return (await op(this.http, 'GET /v1/box-checkpoints', { query: { box_id: o.boxId, name: o.name } })).data;
  }
  get(id: string): Promise<Checkpoint> {
    return op(this.http, 'GET /v1/box-checkpoints/:checkpoint_id', { params: { checkpoint_id: id } });
  }
  delete(id: string): Promise<Checkpoint> {
    return op(this.http, 'DELETE /v1/box-checkpoints/:checkpoint_id', { params: { checkpoint_id: id } });
  }
  /** A new box from a checkpoint. */
  async restore(id: string, o: { name: string; idempotencyKey?: string }): Promise<Box> {
    const info = await op(this.http, 'POST /v1/boxes/from_checkpoint', {
      body: { checkpoint_id: id, name: o.name },
      idempotencyKey: o.idempotencyKey ?? crypto.randomUUID(),
    });
    return new Box(this.http, info);
  }
}

/** A volume and its files (on this machine; boxes mount it). */
export class VolumeHandle {
  /** @internal */
  constructor(
    private readonly http: Http,
    public info: Volume,
  ) {}
  get id(): string {
    return this.info.volume_id;
  }
  get name(): string {
    return this.info.name;
  }
  private get params() {
    return { volume_id: this.id };
  }
  /** Writes a file (text, bytes, a Blob or a stream). */
  write(path: string, data: UploadBody, o: { mode?: string; createParents?: boolean } = {}): Promise<FileWriteResult> {
    return this.http.json('PUT', `/v1/box-volumes/${encodeURIComponent(this.id)}/files`, {
      query: { path, mode: o.mode, create_parents: o.createParents === undefined ? undefined : String(o.createParents) },
      body: typeof data === 'string' ? new TextEncoder().encode(data) : data,
    });
  }
  async read(path: string): Promise<Uint8Array> {
    const res = await this.http.request('GET', `/v1/box-volumes/${encodeURIComponent(this.id)}/files`, { query: { path } });
    return new Uint8Array(await res.arrayBuffer());
  }
  async readText(path: string): Promise<string> {
    return new TextDecoder().decode(await this.read(path));
  }
  async readStream(path: string): Promise<ReadableStream<Uint8Array>> {
    const res = await this.http.request('GET', `/v1/box-volumes/${encodeURIComponent(this.id)}/files`, { query: { path } });
    return res.body ?? new ReadableStream({ start: (c) => c.close() });
  }
  async list(path?: string): Promise<VolumeEntry[]> {
    return (await op(this.http, 'GET /v1/box-volumes/:volume_id/directories', { params: this.params, query: { path } })).entries;
  }
  stat(path: string): Promise<VolumeEntry> {
    return op(this.http, 'GET /v1/box-volumes/:volume_id/paths', { params: this.params, query: { path } });
  }
  mkdir(path: string): Promise<VolumeEntry> {
    return op(this.http, 'POST /v1/box-volumes/:volume_id/directories', { params: this.params, body: { path } });
  }
  move(from: string, to: string): Promise<VolumeEntry> {
    return op(this.http, 'POST /v1/box-volumes/:volume_id/paths/move', { params: this.params, body: { from, to } });
  }
  remove(path: string, o: { recursive?: boolean } = {}): Promise<DeletedPath> {
    return op(this.http, 'DELETE /v1/box-volumes/:volume_id/paths', { params: this.params, query: { path, recursive: o.recursive } });
  }
  async delete(): Promise<Volume> {
    return (this.info = await op(this.http, 'DELETE /v1/box-volumes/:volume_id', { params: this.params }));
  }
}

export class Volumes {
  /** @internal */
  constructor(private readonly http: Http) {}
  async create(o: { name: string; idempotencyKey?: string }): Promise<VolumeHandle> {
    const info = await op(this.http, 'POST /v1/box-volumes', { body: { name: o.name }, idempotencyKey: o.idempotencyKey ?? crypto.randomUUID() });
    return new VolumeHandle(this.http, info);
  }
  async get(id: string): Promise<VolumeHandle> {
    return new VolumeHandle(this.http, await op(this.http, 'GET /v1/box-volumes/:volume_id', { params: { volume_id: id } }));
  }
  async list(o: { limit?: number; offset?: number } = {}): Promise<Page<VolumeHandle>> {
    const page = await op(this.http, 'GET /v1/box-volumes', { query: o });
    return { ...page, data: page.data.map((v) => new VolumeHandle(this.http, v)) };
  }
}

/** HTTP (egress) policies: what boxes may reach, and secrets injected on the way out. */
export class Policies {
  /** @internal */
  constructor(private readonly http: Http) {}
  async presets(): Promise<PolicyPreset[]> {
    return (await op(this.http, 'GET /v1/http-policies/presets')).data;
  }
  create(body: CreatePolicyBody): Promise<HttpPolicy> {
    return op(this.http, 'POST /v1/http-policies', { body, idempotencyKey: crypto.randomUUID() });
  }
  async list(o: { limit?: number; offset?: number } = {}): Promise<Page<HttpPolicy>> {
    return op(this.http, 'GET /v1/http-policies', { query: o });
  }
  get(id: string): Promise<HttpPolicy> {
    return op(this.http, 'GET /v1/http-policies/:id', { params: { id } });
  }
  update(id: string, body: PatchPolicyBody): Promise<HttpPolicy> {
    return op(this.http, 'PATCH /v1/http-policies/:id', { params: { id }, body });
  }
  delete(id: string): Promise<HttpPolicy> {
    return op(this.http, 'DELETE /v1/http-policies/:id', { params: { id } });
  }
}

/** Webhook inboxes: local receivers for completion webhooks (what the playground shows). */
export class Inboxes {
  /** @internal */
  constructor(private readonly http: Http) {}
  /** Your own inbox (of this key's user): the same one every time, made the first time. */
  mine(): Promise<Inbox> {
    return op(this.http, 'POST /v1/inbox/mine');
  }
  /** A new inbox answering `respondStatus` (default 200). */
  create(o: { respondStatus?: number } = {}): Promise<Inbox> {
    return op(this.http, 'POST /v1/inbox', { body: { respond_status: o.respondStatus } });
  }
  async list(): Promise<Inbox[]> {
    return (await op(this.http, 'GET /v1/inboxes')).data;
  }
  /** Deliveries, newest first (of one inbox, or all of the organization's). */
  async deliveries(o: { inboxId?: string; limit?: number; offset?: number } = {}): Promise<InboxDelivery[]> {
    const query = {
      inbox_id: o.inboxId,
      limit: o.limit === undefined ? undefined : String(o.limit),
      offset: o.offset === undefined ? undefined : String(o.offset),
    };
    return (await op(this.http, 'GET /v1/inbox', { query })).data;
  }
}

/**
 * The Box Desktop client. `new BoxClient()` finds the local service like the `box` CLI
 * (BOX_URL, BOX_API_KEY, the running service's endpoint and key files);
 * `new BoxClient({ url, apiKey })` names them.
 */
export class BoxClient {
  readonly boxes: Boxes;
  readonly checkpoints: Checkpoints;
  readonly volumes: Volumes;
  readonly policies: Policies;
  readonly inboxes: Inboxes;
  readonly embeddings: Embeddings;
  /** @internal */
  readonly http: Http;

  constructor(options: ClientOptions = {}) {
    this.http = new Http(options);
    this.boxes = new Boxes(this.http);
    this.checkpoints = new Checkpoints(this.http);
    this.volumes = new Volumes(this.http);
    this.policies = new Policies(this.http);
    this.inboxes = new Inboxes(this.http);
    this.embeddings = new Embeddings(this.http);
  }

  /** The service's base URL in use. */
  get url(): string {
    return this.http.config.url;
  }

  whoami(): Promise<Whoami> {
    return op(this.http, 'GET /v1/whoami');
  }
  /** Every cron job of the organization's boxes. */
  async cronJobs(): Promise<CronJob[]> {
    return (await op(this.http, 'GET /v1/cron')).data;
  }
  /** Which box was forked or restored from which. */
  async lineage(): Promise<LineageEdge[]> {
    return (await op(this.http, 'GET /v1/box-lineage')).data;
  }
}
