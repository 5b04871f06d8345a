import type { Express, NextFunction, Request, Response } from 'express';
import type { AppContext } from '../app-context.js';
import type { Fallback, RouteRegistrar } from './route.js';
import { routeContract } from '../contract/routes.js';
import { authenticate } from './auth.js';
import { ApiError, badRequest } from './api-errors.js';
import { setErrorStyle } from './error-handler.js';
import { runRoute, type Area, type RouteSpec, type UpgradeSpec } from './route.js';
import { specificity } from './route-match.js';
import { Dispatcher } from './dispatch.js';

/** Keeps every route's spec: it mounts them, answers 404/405, and feeds the OpenAPI document. */
export class RouteRegistry implements RouteRegistrar {
  readonly specs: RouteSpec[] = [];
  private fallbacks: Fallback[] = [];

  fallback(f: Fallback): void {
    this.fallbacks.push(f);
  }

  readonly upgrades: UpgradeSpec[] = [];

  upgrade(spec: UpgradeSpec): void {
    if (this.upgrades.some((s) => s.path === spec.path)) throw new Error(`upgrade ${spec.path} registered twice`);
    this.upgrades.push(spec);
  }

  /** The same routes called in-process (http/dispatch.ts), live once they are mounted. */
  readonly dispatcher = new Dispatcher(() => this.specs);

  add(spec: RouteSpec<any, any, any>): void {
    if (this.specs.some((s) => s.method === spec.method && s.path === spec.path)) {
      throw new Error(`route ${spec.method.toUpperCase()} ${spec.path} registered twice`);
    }
    // The answer's shape comes from the contract (contract/routes.ts), shared with the clients.
    // A route missing there is listed by registry-contract.test.ts (and fails every answer under tests).
    const c = routeContract(spec.method, spec.path);
    if (c?.response && spec.response && spec.response !== c.response) {
      throw new Error(`route ${spec.method.toUpperCase()} ${spec.path} declares a response schema other than its entry in contract/routes.ts`);
    }
    this.specs.push(c ? { ...spec, response: spec.response ?? c.response, responseKind: spec.responseKind ?? c.kind, streamEvents: c.events } : spec);
  }

  mount(app: Express, ctx: AppContext, areas: Area[]): void {
    this.dispatcher.bind(ctx);
    // Literal segments before parameters, so `/v1/boxes/spend` wins over `/v1/boxes/:box_id`.
    const ordered = [...this.specs].filter((s) => areas.includes(s.area)).sort((a, b) => specificity(b.path) - specificity(a.path));
    // Literal paths (no parameter) by exact method and path, ahead of Express's walk over
    // every route: the inference endpoints are literal, and that walk showed in the gateway's
    // profile. Same outcome: a literal route always beats a parameterized one of the same
    // path (specificity order above); anything else (HEAD, a trailing slash, other casing,
    // parameters) falls through to the Express routes below.
    const literal = new Map<string, ReturnType<typeof runRoute>>();
    for (const spec of ordered) {
      const k = `${spec.method.toUpperCase()} ${spec.path}`;
      if (!spec.path.includes(':') && !literal.has(k)) literal.set(k, runRoute(spec, ctx));
    }
    app.use((req: Request, res: Response, next: NextFunction) => {
      const run = literal.get(`${req.method} ${req.path}`);
      if (!run) return next();
      run(req, res).catch(next);
    });
    // Before any route: Express would answer a malformed %-escape in a parameter with a bare 500.
    app.use(async (req: Request, _res: Response, next: NextFunction) => {
      const bad = malformedParam(ordered, req.path);
      if (!bad) return next();
      setErrorStyle(req, bad.errors);
      if (!bad.keyless) await authenticate(req, ctx.repos);
      next(badRequest(`Invalid ${bad.param}: the path segment is not valid percent-encoded UTF-8.`, bad.param, 'invalid_encoding'));
    });
    for (const spec of ordered) app[spec.method](spec.path, runRoute(spec, ctx));
    // Another API's unknown routes (E2B's at /e2b/api), answered in its own error style once the caller is known.
    for (const f of this.fallbacks.filter((f) => areas.includes(f.area))) {
      app.use(f.prefix, async (req: Request, _res: Response, next: NextFunction) => {
        setErrorStyle(req, f.errors);
        await authenticate(req, ctx.repos);
        next(f.error(req));
      });
    }
    // Unknown routes and methods: authenticate first, so routes cannot be enumerated without a key.
    app.use('/v1', async (req: Request, _res: Response, next: NextFunction) => {
      const candidates = ordered.filter((s) => matches(s.path, `/v1${req.path}`));
      if (!candidates.length || candidates.some((s) => s.auth !== 'none')) await authenticate(req, ctx.repos);
      const allowed = candidates.map((s) => s.method.toUpperCase());
      if (allowed.length) {
        return next(
          new ApiError(
            405,
            'invalid_request_error',
            `${req.method} is not allowed on ${req.originalUrl.split('?')[0]}; allowed: ${[...new Set(allowed)].join(', ')}.`,
            {
              code: 'method_not_allowed',
              headers: { Allow: [...new Set(allowed)].join(', ') },
            },
          ),
        );
      }
      next(new ApiError(404, 'not_found_error', `No such endpoint: ${req.method} ${req.originalUrl.split('?')[0]}.`, { code: 'unknown_route' }));
    });
  }
}

/** The parameter a path fills with a segment that does not decode, and whether every such route is keyless. */
function malformedParam(specs: RouteSpec[], path: string): { param: string; keyless: boolean; errors: RouteSpec['errors'] } | undefined {
  const segs = path.replace(/\/+$/, '').split('/');
  const badAt = segs.findIndex((s) => s.includes('%') && !decodes(s));
  if (badAt < 0) return undefined;
  const fits = specs.filter((s) => {
    const pat = s.path.split('/');
    return pat.length === segs.length && pat[badAt]!.startsWith(':') && pat.every((p, i) => p.startsWith(':') || p === segs[i]);
  });
  if (!fits.length) return undefined; // no route takes it: the 404 path answers
  return { param: fits[0]!.path.split('/')[badAt]!.slice(1), keyless: fits.every((s) => s.auth === 'none'), errors: fits[0]!.errors };
}

function decodes(seg: string): boolean {
  try {
    decodeURIComponent(seg);
    return true;
  } catch {
    return false;
  }
}

function matches(pattern: string, path: string): boolean {
  const a = pattern.split('/');
  const b = path.replace(/\/+$/, '').split('/');
  return a.length === b.length && a.every((seg, i) => seg.startsWith(':') || seg === b[i]);
}
