import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AppContext } from '../app-context.js';
import { sendError } from './error-handler.js';
import { guardError } from './guard.js';
import { paramsOf, specificity } from './route-match.js';
import { runRoute, type Area, type RouteSpec } from './route.js';

type Run = (req: IncomingMessage & { params?: Record<string, string> }, res: ServerResponse) => Promise<unknown>;

/** A `plain` route with path parameters, and the routes Express would try before it. */
interface ParamRoute {
  method: string;
  segs: string[];
  run: Run;
  /** Routes of the same method Express tries first that can match the same paths: a request they match goes to Express. */
  shadows: string[][];
}

/**
 * The request listener in front of Express. Routes marked `plain` (the inference endpoints,
 * and `POST /v1/boxes/:box_id/exec`) are served here straight from node:http when the
 * request is exactly `METHOD /path` (no query string), the path matching the route's
 * literal segments exactly and each parameter a non-empty segment that decodes: Express's
 * per-request work (prototype swaps, its router's walk over every layer, `res.send`'s
 * header logic) was most of the gateway's overhead and a third of the service's CPU per
 * exec. It is the same pipeline, not a second one: the same local guard (`guardError`),
 * the same `runRoute` (auth, box principal, billing, limits, idempotency, body limits, zod
 * validation of params and body, the handler) and the same error rendering (`sendError`)
 * Express's routes use. Anything else goes to Express: a query string, a trailing slash,
 * other casing, another method, a malformed %-escape (answered there with its 400), and a
 * path a more specific route (Express's order, http/registry.ts) would take.
 */
export function plainFront(specs: RouteSpec[], ctx: AppContext, areas: Area[], express: RequestListener): RequestListener {
  const literal = new Map<string, Run>();
  const withParams: ParamRoute[] = [];
  // Express's order (http/registry.ts): most specific first, then as registered
  const served = specs.filter((s) => areas.includes(s.area)).sort((a, b) => specificity(b.path) - specificity(a.path));
  for (const [at, spec] of served.entries()) {
    if (!spec.plain) continue;
    const method = spec.method.toUpperCase();
    if (!spec.path.includes(':')) {
      literal.set(`${method} ${spec.path}`, runRoute(spec, ctx));
      continue;
    }
    const segs = spec.path.split('/');
    const shadows = served
      .slice(0, at)
      .filter((o) => o.method === spec.method)
      .map((o) => o.path.split('/'))
      .filter((o) => o.length === segs.length && o.every((p, i) => p.startsWith(':') || segs[i]!.startsWith(':') || p === segs[i]));
    withParams.push({ method, segs, run: runRoute(spec, ctx), shadows });
  }
  const route = (req: IncomingMessage): { run: Run; params?: Record<string, string> } | undefined => {
    const url = req.url ?? '';
    const run = literal.get(`${req.method} ${url}`);
    if (run) return { run };
    if (!withParams.length || url.includes('?')) return undefined;
    const parts = url.split('/');
    for (const r of withParams) {
      if (r.method !== req.method) continue;
      const params = paramsOf(r.segs, parts);
      if (params && !r.shadows.some((s) => paramsOf(s, parts))) return { run: r.run, params };
    }
    return undefined;
  };
  return (req, res) => {
    const found = route(req);
    if (!found) return express(req, res);
    const refused = guardError(req, ctx.config);
    if (refused) return sendError(req, res, refused, ctx);
    // what Express's router gives a handler: the decoded path parameters
    if (found.params) (req as IncomingMessage & { params?: Record<string, string> }).params = found.params;
    found.run(req, res).catch((e: unknown) => sendError(req, res, e, ctx));
  };
}
