import type { RouteRegistrar } from '../platform/http/route.js';
import { buildOpenApi } from '../platform/http/openapi.js';
import { API_VERSION } from './identity-routes.js';

/** `GET /v1/openapi.json`: every route of the service (built on the first request, when all areas are mounted). */
export function openApiRoutes(r: RouteRegistrar) {
  let doc: unknown;
  r.add({
    method: 'get',
    path: '/v1/openapi.json',
    area: 'common',
    tag: 'meta',
    auth: 'none',
    summary: 'This OpenAPI document',
    handler: () => {
      const reg = r as unknown as { specs: never[]; upgrades: never[] };
      return (doc ??= buildOpenApi(reg.specs, reg.upgrades, API_VERSION));
    },
  });
}
