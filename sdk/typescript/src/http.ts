import { BoxConnectionError, BoxError, errorOf, retryAfterSeconds } from './errors.js';
import { resolveConfig, type ServiceConfig } from './config.js';
import { pinnedFetch, type TlsPin } from './tls.js';

/** How a client finds and talks to the service. Every field is optional. */
export interface ClientOptions {
  /** The service's base URL; default: BOX_URL, the running service's endpoint file, http://127.0.0.1:8787. */
  url?: string;
  /** The API key; default: BOX_API_KEY, else the service's key file. */
  apiKey?: string;
  /** Retries of a 429 with Retry-After or a 503 (default 3). */
  maxRetries?: number;
  /** The longest wait between two tries, in ms (default 60 000); a longer Retry-After fails at once. */
  maxRetryDelayMs?: number;
  /** Environment to read BOX_URL, BOX_API_KEY and BOX_DATA_DIR from (default process.env). */
  env?: Record<string, string | undefined>;
  /** A fetch implementation (default the global fetch; over HTTPS with a pinned certificate, `pinnedFetch`). */
  fetch?: typeof fetch;
  /**
   * The service's certificate, pinned: its SHA-256 fingerprint (what `npx box context add`
   * shows and the service prints at start) and optionally its CA's PEM. Default: the
   * context's (BOX_CONTEXT or the current context), when the URL comes from one.
   */
  tls?: TlsPin;
}

export type Query = Record<string, string | number | boolean | null | undefined>;
export type UploadBody = string | Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface RequestOptions {
  query?: Query;
  json?: unknown;
  body?: UploadBody;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  signal?: AbortSignal;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

/**
 * The transport: base URL, key, the spec's error envelope as typed errors, and retries.
 * A 429 with Retry-After never started and a 503 did not run (spec, "Rules for 429/503"):
 * both are sent again unchanged (same body, same Idempotency-Key) after the delay the
 * service names, or after a backoff for a 503 without one; `x-should-retry: false` and a
 * body that cannot be replayed (a stream) are not retried.
 * @internal
 */
export class Http {
  readonly config: ServiceConfig;
  private readonly maxRetries: number;
  private readonly maxRetryDelayMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(o: ClientOptions = {}) {
    this.config = resolveConfig({ url: o.url, apiKey: o.apiKey }, o.env ?? process.env);
    this.maxRetries = o.maxRetries ?? 3;
    this.maxRetryDelayMs = o.maxRetryDelayMs ?? 60_000;
    const pin = o.tls ?? this.config.tls;
    const pinned = pin && this.config.url.startsWith('https:') ? pinnedFetch(pin) : undefined;
    this.fetchImpl = o.fetch ?? pinned ?? ((...a) => fetch(...a));
  }

  url(pathname: string, query?: Query): string {
    let u = `${this.config.url}${pathname}`;
    const qs = Object.entries(query ?? {})
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
      .join('&');
    if (qs) u += `?${qs}`;
    return u;
  }

  /** Sends a request; answers the Response once it is 2xx, else throws the typed error. */
  async request(method: string, pathname: string, o: RequestOptions = {}): Promise<Response> {
    if (!this.config.apiKey) {
      throw new BoxError(`no API key: pass apiKey, set BOX_API_KEY, or start the service so that it writes ${this.config.keySource}`);
    }
    const headers: Record<string, string> = { authorization: `Bearer ${this.config.apiKey}`, ...o.headers };
    if (o.idempotencyKey) headers['idempotency-key'] = o.idempotencyKey;
    let body: BodyInit | undefined;
    let replayable = true;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json); // serialized once: a retry sends the same bytes (idempotency compares them)
      headers['content-type'] = 'application/json';
    } else if (o.body !== undefined) {
      if (typeof o.body === 'string' || o.body instanceof Uint8Array || o.body instanceof ArrayBuffer || o.body instanceof Blob) body = o.body as BodyInit;
      else {
        replayable = false;
        body = o.body as BodyInit; // undici sends a web stream or an async iterable as it reads it
      }
      headers['content-type'] ??= 'application/octet-stream';
    }
    const url = this.url(pathname, o.query);
    const what = `${method} ${pathname}`;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetchImpl(url, { method, headers, body, signal: o.signal, ...(replayable ? {} : { duplex: 'half' }) } as RequestInit);
      } catch (e) {
        if (o.signal?.aborted) throw e;
        const cause = (e as { cause?: { code?: string; message?: string } }).cause;
        throw new BoxConnectionError(
          `cannot reach the box service at ${url} (${cause?.code ?? cause?.message ?? (e as Error).message}); is it running? The URL came from ${this.config.urlSource}`,
          url,
          { cause: e },
        );
      }
      if (res.ok) return res;
      const delay = this.retryDelay(res, attempt, replayable);
      if (delay === undefined) throw await errorOf(res, what);
      await res.body?.cancel().catch(() => {});
      await sleep(delay, o.signal);
    }
  }

  /** The wait before trying again, or undefined when this answer is final. */
  private retryDelay(res: Response, attempt: number, replayable: boolean): number | undefined {
    if (attempt >= this.maxRetries || !replayable || res.headers.get('x-should-retry') === 'false') return undefined;
    const after = retryAfterSeconds(res.headers);
    if (res.status === 429 && after === undefined) return undefined; // it ran and hit a limit: not ours to repeat
    if (res.status !== 429 && res.status !== 503) return undefined;
    const ms = after !== undefined ? after * 1000 : Math.min(8000, 500 * 2 ** attempt) * (0.75 + Math.random() / 2);
    return ms > this.maxRetryDelayMs ? undefined : ms;
  }

  /** A request answering JSON. */
  async json<T>(method: string, pathname: string, o: RequestOptions = {}): Promise<T> {
    const res = await this.request(method, pathname, o);
    const text = await res.text();
    if (!text) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new BoxError(`the service answered ${method} ${pathname} with something that is not JSON: ${text.slice(0, 200)}`);
    }
  }
}
