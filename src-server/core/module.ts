import type { AppBase, Area } from '../app-context.js';
import { buildOpenApi } from '../http/openapi.js';
import { AppsService } from './apps-service.js';
import { appsRoutes } from './apps-routes.js';
import { AuditLog } from './audit-log.js';
import { API_VERSION, identityRoutes } from './identity-routes.js';
import { KeysService } from './keys-service.js';
import { OrganizationService } from './organization-service.js';
import { SignInService } from './sign-in-service.js';
import { loginLinkRoutes } from './sign-in-routes.js';

/** Identity, keys, organization, apps, audit log and the OpenAPI document. */
export function coreArea(app: AppBase) {
  const { repos } = app;
  const audit = new AuditLog(repos.audit);
  const services = {
    audit,
    keys: new KeysService(repos.keys, audit),
    organization: new OrganizationService(app.db, repos.orgs, audit),
    apps: new AppsService(repos.apps),
    signIn: new SignInService(repos.keys, repos.sessions),
  };
  const area: Area = {
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
  return { ...services, area };
}
