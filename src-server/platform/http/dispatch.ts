import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../app-context.js';
import type { Principal } from '../../kernel/principal.js';
import { ApiError } from './api-errors.js';
import { sendError } from './error-handler.js';
import { InProcessRequest, InProcessResponse } from './in-process.js';
import { paramsOf, specificity } from './route-match.js';
import { runAs, type Dispatch, type DispatchRequest, type RouteSpec } from './route.js';

interface Entry {
  method: string;
  segs: string[];
  run: ReturnType<typeof runAs>;
}

/**
 * The service's routes without a socket: a call runs the same pipeline as an HTTP request
 * after authentication (`runAs`: scope check, billing (402 at zero credits), the
 * organization's concurrency limit, body limits, idempotency, validation, the handler, the
 * response check under tests), for a principal the caller has already authenticated (the
 * MCP area: the key its /mcp request came with). Routes are found as Express finds them
 * (most specific first). The answer is a fetch `Response` streaming what the handler
 * writes, errors in the API's envelope, exactly as a client over HTTP reads them.
 */
export class Dispatcher implements Dispatch {
  private ctx: AppContext | undefined;
  private table: Map<string, Entry[]> | undefined;

  constructor(private readonly specs: () => RouteSpec[]) {}

  /** Called when the routes are mounted: from then on, calls run. */
  bind(ctx: AppContext) {
    this.ctx ??= ctx;
  }

  async send(principal: Principal, r: DispatchRequest): Promise<Response> {
    const ctx = this.ctx;
    if (!ctx) throw new Error('in-process call before the routes were mounted');
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.query ?? {})) if (v !== undefined && v !== null) query[k] = String(v);
    const qs = new URLSearchParams(query).toString();
    const body = r.json !== undefined ? Buffer.from(JSON.stringify(r.json)) : r.body;
    const headers: IncomingHttpHeaders = {};
    for (const [k, v] of Object.entries(r.headers ?? {})) headers[k.toLowerCase()] = v;
    if (body) {
      headers['content-type'] ??= r.json !== undefined ? 'application/json' : 'application/octet-stream';
      headers['content-length'] = String(body.length);
    }
    const method = r.method.toUpperCase();
    const found = this.find(ctx, method, r.path);
    const inReq = new InProcessRequest(method, qs ? `${r.path}?${qs}` : r.path, headers, found?.params ?? {}, query, body);
    // What handlers use of node:http's objects and of Express's (in-process.ts), not all of it.
    const req = inReq as unknown as IncomingMessage & { params: Record<string, string>; query: Record<string, string> };
    const res = new InProcessResponse();
    const out = res as unknown as ServerResponse;
    if (r.signal?.aborted) throw r.signal.reason;
    r.signal?.addEventListener('abort', () => res.destroy(), { once: true });
    const run = found
      ? found.entry.run(req, out, principal)
      : Promise.reject(new ApiError(404, 'not_found_error', `No such endpoint: ${method} ${r.path}.`, { code: 'unknown_route' }));
    run.catch((e: unknown) => sendError(req, out, e, ctx));
    return res.response;
  }

  private find(ctx: AppContext, method: string, path: string) {
    // Bucketed by method and segment count (a path only fits a pattern of its length), most specific first.
    this.table ??= buckets(
      [...this.specs()]
        .sort((a, b) => specificity(b.path) - specificity(a.path))
        .map((spec) => ({ method: spec.method.toUpperCase(), segs: spec.path.split('/'), run: runAs(spec, ctx) })),
    );
    const parts = path.split('/');
    for (const entry of this.table.get(`${method} ${parts.length}`) ?? []) {
      const params = paramsOf(entry.segs, parts);
      if (params) return { entry, params };
    }
    return undefined;
  }
}

function buckets(entries: Entry[]): Map<string, Entry[]> {
  const m = new Map<string, Entry[]>();
  for (const e of entries) {
    const k = `${e.method} ${e.segs.length}`;
    const list = m.get(k);
    if (list) list.push(e);
    else m.set(k, [e]);
  }
  return m;
}
