import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ApiRequest } from '@box/contract/call';

/**
 * What the MCP server needs from the outside: the box API. The MCP tools (server.ts) reach
 * boxes, exec, files, the egress log and the code interpreter only through this port, so
 * both transports run the same code and answer what the HTTP API answers (its access
 * checks, audit, billing, idempotency and error messages included):
 *  - `box mcp` (stdio, src-cli) implements it with the CLI's HTTP client and its key;
 *  - `/mcp` on the service implements it in-process (mcp-routes.ts): each call runs the
 *    route through the service's pipeline (http/dispatch.ts) as the /mcp request's caller.
 */
export interface BoxApi {
  /** Sends one request; a 2xx answer comes back as is, any other throws an ApiCallError. */
  send(req: ApiRequest): Promise<Response>;
}

/**
 * The box API a tool call acts through, from the call's context: `box mcp` has one for the
 * process; /mcp hands each request's own (in-process, as its caller) in
 * the request's `authInfo`, so a server can be reused across requests (http-service.ts).
 */
export type ApiOf = (extra: RequestHandlerExtra<ServerRequest, ServerNotification>) => BoxApi;

/** The spec's error envelope of a failed API call. */
interface ApiErrorEnvelope {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/** A non-2xx answer of the box API (or the API unreachable: status 0), carrying its envelope. */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly envelope: ApiErrorEnvelope,
  ) {
    super(envelope.message);
  }
}

/** Reads a failed answer's envelope; a body outside the envelope still becomes a clear message. */
export async function apiCallError(res: Response): Promise<ApiCallError> {
  const text = await res.text().catch(() => '');
  try {
    const e = (JSON.parse(text) as { error?: Partial<ApiErrorEnvelope> }).error;
    if (e && typeof e.message === 'string') {
      return new ApiCallError(res.status, { message: e.message, type: e.type ?? 'api_error', param: e.param ?? null, code: e.code ?? null });
    }
  } catch {
    // not JSON: described below
  }
  const message = `HTTP ${res.status} ${res.statusText}${text ? `: ${text.slice(0, 200)}` : ''}`;
  return new ApiCallError(res.status, { message, type: 'api_error', param: null, code: null });
}

/** The box API at `baseUrl` with fixed headers (the credentials), over fetch. */
export function httpBoxApi(baseUrl: string, headers: Record<string, string>, fetchImpl: typeof fetch = (...a) => fetch(...a)): BoxApi {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    async send(r) {
      const u = new URL(base + r.path);
      for (const [k, v] of Object.entries(r.query ?? {})) if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
      const h: Record<string, string> = { ...headers, ...r.headers };
      let body: BodyInit | undefined;
      if (r.json !== undefined) {
        body = JSON.stringify(r.json);
        h['content-type'] = 'application/json';
      } else if (r.body !== undefined) {
        body = r.body as unknown as BodyInit;
        h['content-type'] ??= 'application/octet-stream';
      }
      let res: Response;
      try {
        res = await fetchImpl(u, { method: r.method, headers: h, body, signal: r.signal });
      } catch (e) {
        if (r.signal?.aborted) throw e;
        const cause = (e as { cause?: { code?: string; message?: string } }).cause;
        const why = cause?.code ?? cause?.message ?? (e as Error).message;
        // a pinned certificate refused (a context's, box mcp): its own message names both fingerprints
        const pin = (e as Error).name === 'PinMismatchError';
        throw new ApiCallError(0, {
          message: pin ? (e as Error).message : `cannot reach the box service at ${base} (${why}): is it running?`,
          type: 'api_error',
          param: null,
          code: 'unreachable',
        });
      }
      if (res.ok) return res;
      throw await apiCallError(res);
    },
  };
}
