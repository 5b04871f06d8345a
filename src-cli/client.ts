import { callWith, type Answer, type CallRequest, type CallRest, type JsonRouteKey } from '@box/contract/call';
import type { CliConfig } from './config.js';
import { PinMismatchError, pinnedFetch } from '../sdk/typescript/src/tls.js';
import { ApiFailure, CliError, type ApiErrorBody } from './errors.js';

type Query = Record<string, string | number | boolean | undefined | null>;

interface RequestOptions {
  query?: Query;
  /** JSON body (sets Content-Type). */
  json?: unknown;
  /** Raw body; a Node stream or web stream is sent streaming. */
  body?: BodyInit | NodeJS.ReadableStream;
  headers?: Record<string, string>;
  /** Use the inference base URL instead of the box API's. */
  inference?: boolean;
  signal?: AbortSignal;
}

/**
 * A small HTTP client of the box API. Every non-2xx answer becomes an ApiFailure carrying
 * the spec's error envelope; a network failure becomes a CliError naming the URL.
 */
export class BoxClient {
  /** Over HTTPS with a pinned certificate (a context's): a fetch that refuses any other certificate. */
  private readonly fetchImpl: typeof fetch;

  constructor(readonly config: CliConfig) {
    const hint = config.context
      ? `run \`npx box context rm ${config.context}\` and \`npx box context add ${config.context} ${config.url}\` to pin the new certificate`
      : 'restart the CLI after the service restarted';
    this.fetchImpl = config.tls && config.url.startsWith('https:') ? pinnedFetch(config.tls, hint) : (...a) => fetch(...a);
  }

  url(pathname: string, query?: Query, inference = false): string {
    const u = new URL(`${inference ? this.config.inferenceUrl : this.config.url}${pathname}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** Sends a request and answers the raw Response once its status is 2xx. */
  async raw(method: string, pathname: string, o: RequestOptions = {}): Promise<Response> {
    if (!this.config.apiKey) {
      throw new CliError(`no API key: set BOX_API_KEY, or start the service so that it writes ${this.config.keySource}`, 3);
    }
    const headers: Record<string, string> = { authorization: `Bearer ${this.config.apiKey}`, ...o.headers };
    let body = o.body as BodyInit | undefined;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['content-type'] = 'application/json';
    }
    const streaming = body !== undefined && typeof body === 'object' && ('pipe' in body || 'getReader' in body);
    const url = this.url(pathname, o.query, o.inference);
    let res: Response;
    try {
      res = await this.fetchImpl(url, { method, headers, body, signal: o.signal, ...(streaming ? { duplex: 'half' } : {}) } as RequestInit);
    } catch (e) {
      if (e instanceof PinMismatchError) throw new CliError(e.message, 3);
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `cannot reach the box service at ${url} (${cause?.code ?? cause?.message ?? (e as Error).message}); is it running? Start it with "npm start", or set BOX_URL (or BOX_DATA_DIR) to the service the banner printed; the URL came from ${this.config.urlSource})`,
      );
    }
    if (res.ok) return res;
    throw await failureOf(res);
  }

  /** A request whose answer is typed by the caller: raw bodies (uploads, stdin); JSON operations use call(). */
  async request<T>(method: string, pathname: string, o: RequestOptions = {}): Promise<T> {
    const res = await this.raw(method, pathname, o);
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    if (!text) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CliError(`the service answered ${method} ${pathname} with something that is not JSON: ${text.slice(0, 200)}`);
    }
  }

  /**
   * One operation of the contract (packages/contract/src/routes.ts), typed from it:
   * `call('GET /v1/boxes/:box_id', { params: { box_id } })` answers a Box.
   */
  call<K extends JsonRouteKey>(key: K, ...args: CallRest<K>): Promise<Answer<K>> {
    const send = (r: CallRequest) =>
      this.request(r.method, r.path, { query: r.query, json: r.json, headers: r.headers, signal: r.signal, inference: INFERENCE_PATH.test(key) });
    return callWith(send, key, ...args);
  }
}

/** Turns an error answer into an ApiFailure; a body outside the envelope still gets a clear line. */
async function failureOf(res: Response): Promise<ApiFailure> {
  const text = await res.text().catch(() => '');
  let body: ApiErrorBody | undefined;
  try {
    const parsed = JSON.parse(text) as { error?: ApiErrorBody };
    if (parsed.error && typeof parsed.error.message === 'string')
      body = { ...parsed.error, param: parsed.error.param ?? null, code: parsed.error.code ?? null };
  } catch {
    body = undefined;
  }
  body ??= { message: `HTTP ${res.status} ${res.statusText}${text ? `: ${text.slice(0, 200)}` : ''}`, type: 'server_error', param: null, code: null };
  return new ApiFailure(res.status, body);
}

/** Operations the inference listener serves (the CLI may be pointed at a separate inference URL). */
const INFERENCE_PATH = / \/v1\/(responses|chat|messages|models|embeddings)/;

/** Path segment encoding for ids and names in URLs. */
export const seg = encodeURIComponent;
