import type { Express, NextFunction, Request, Response } from 'express';
import type { AppContext, RouteRegistrar } from '../app-context.js';
import { ApiError } from './errors.js';
import { runRoute, type Area, type RouteSpec } from './route.js';

/** Keeps every route's spec: it mounts them, answers 404/405, and feeds the OpenAPI document. */
export class RouteRegistry implements RouteRegistrar {
  readonly specs: RouteSpec[] = [];

  add(spec: RouteSpec<any, any, any>): void {
    if (this.specs.some((s) => s.method === spec.method && s.path === spec.path)) {
      throw new Error(`route ${spec.method.toUpperCase()} ${spec.path} registered twice`);
    }
    this.specs.push(spec);
  }

  mount(app: Express, ctx: AppContext, areas: Area[]): void {
    // Literal segments before parameters, so `/v1/boxes/spend` wins over `/v1/boxes/:box_id`.
    const ordered = [...this.specs]
      .filter((s) => areas.includes(s.area))
      .sort((a, b) => specificity(b.path) - specificity(a.path));
    for (const spec of ordered) app[spec.method](spec.path, runRoute(spec, ctx));
    app.use('/v1', (req: Request, _res: Response, next: NextFunction) => {
      const allowed = ordered.filter((s) => matches(s.path, `/v1${req.path}`)).map((s) => s.method.toUpperCase());
      if (allowed.length) {
        return next(new ApiError(405, 'invalid_request_error', `${req.method} is not allowed on ${req.originalUrl.split('?')[0]}; allowed: ${[...new Set(allowed)].join(', ')}.`, {
          code: 'method_not_allowed',
          headers: { Allow: [...new Set(allowed)].join(', ') },
        }));
      }
      next(new ApiError(404, 'not_found_error', `No such endpoint: ${req.method} ${req.originalUrl.split('?')[0]}.`, { code: 'unknown_route' }));
    });
  }
}

function specificity(path: string): number {
  return path.split('/').reduce((n, seg, i) => n + (seg.startsWith(':') ? 0 : 1000 >> i), 0);
}

function matches(pattern: string, path: string): boolean {
  const a = pattern.split('/');
  const b = path.replace(/\/+$/, '').split('/');
  return a.length === b.length && a.every((seg, i) => seg.startsWith(':') || seg === b[i]);
}
