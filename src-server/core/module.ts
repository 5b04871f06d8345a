import type { Area } from '../app-context.js';
import { buildOpenApi } from '../http/openapi.js';
import { appsRoutes } from './apps-routes.js';
import { API_VERSION, identityRoutes } from './identity-routes.js';
import { loginLinkRoutes } from './sign-in-routes.js';

/** Identity, keys, organization, apps, audit log and the OpenAPI document. */
export function coreArea(): Area {
  return {
    name: 'core',
    routes(r) {
      identityRoutes(r);
      appsRoutes(r);
      loginLinkRoutes(r);
      let doc: unknown;
      r.add({
        method: 'get',
        path: '/v1/openapi.json',
        area: 'common',
        tag: 'meta',
        auth: 'none',
        summary: 'This OpenAPI document',
        handler: () => (doc ??= buildOpenApi((r as unknown as { specs: never[] }).specs, API_VERSION)),
      });
    },
  };
}
