import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AppContext } from '../app-context.js';
import { sendError } from './error-handler.js';
import { guardError } from './guard.js';
import { runRoute, type Area, type RouteSpec } from './route.js';

/**
 * The request listener in front of Express. Routes marked `plain` (the inference endpoints)
 * are served here straight from node:http when the request is exactly `METHOD /literal/path`
 * (no query string): Express's per-request work (prototype swaps, its router's walk over
 * layers, `res.send`'s header logic) was most of the gateway's overhead. It is the same
 * pipeline, not a second one: the same local guard (`guardError`), the same `runRoute`
 * (auth, box principal, billing, limits, idempotency, body limits, zod validation, the
 * handler) and the same error rendering (`sendError`) Express's routes use. Anything else,
 * including those paths with a query, a trailing slash or another method, goes to Express.
 */
export function plainFront(specs: RouteSpec[], ctx: AppContext, areas: Area[], express: RequestListener): RequestListener {
  const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => Promise<unknown>>();
  for (const spec of specs) {
    if (spec.plain && areas.includes(spec.area) && !spec.path.includes(':')) routes.set(`${spec.method.toUpperCase()} ${spec.path}`, runRoute(spec, ctx));
  }
  return (req, res) => {
    const run = routes.get(`${req.method} ${req.url}`);
    if (!run) return express(req, res);
    const refused = guardError(req);
    if (refused) return sendError(req, res, refused, ctx);
    run(req, res).catch((e: unknown) => sendError(req, res, e, ctx));
  };
}
