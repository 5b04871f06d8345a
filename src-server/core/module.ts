import type { AreaModule } from '../app-context.js';
import { buildOpenApi } from '../http/openapi.js';
import { appsRoutes } from './apps-routes.js';
import { API_VERSION, identityRoutes } from './identity-routes.js';
import { loginLinkRoutes } from './sign-in.js';

declare module '../app-context.js' {
  interface Services {
    /** Disk bytes used by an app's boxes (set by the boxes area). */
    diskUsage: (appId: string) => number;
  }
}

/** Identity, keys, organization, apps, audit log and the OpenAPI document. */
export const coreModule: AreaModule = {
  name: 'core',
  install(_app, r) {
    identityRoutes(r);
    appsRoutes(r);
    loginLinkRoutes(r);
    let doc: unknown;
    r.add({
      method: 'get', path: '/v1/openapi.json', area: 'common', tag: 'meta', auth: 'none',
      summary: 'This OpenAPI document',
      handler: () => (doc ??= buildOpenApi((r as unknown as { specs: never[] }).specs, API_VERSION)),
    });
  },
};
