import type { AppBase } from '../app-context.js';
import type { Area } from '../area.js';
import { AppsService } from './apps-service.js';
import { appsRoutes } from './apps-routes.js';
import { AuditLog } from './audit-log.js';
import { identityRoutes } from './identity-routes.js';
import { KeysService } from './keys-service.js';
import { OrganizationService } from './organization-service.js';
import { SignInService } from './sign-in-service.js';
import { openApiRoutes } from './openapi-routes.js';
import { InviteService } from './invite-service.js';
import { inviteRoutes, mountInvitePage } from './invite-routes.js';
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
    invites: new InviteService(app.config.dataDir, repos.keys, audit),
  };
  /** Its routes also show usage and disk use, from areas built later (wiring.ts passes them). */
  const area = (late: { usage: { flushTokens(): Promise<void> }; diskUsage: (appId: string) => Promise<number> }): Area => ({
    name: 'core',
    mount: (express) => mountInvitePage(express, services.invites, app.baseUrl, () => app.config.tls?.fingerprint),
    routes(r) {
      identityRoutes(r, { ...services, usage: late.usage });
      appsRoutes(r, { apps: services.apps, diskUsage: late.diskUsage });
      loginLinkRoutes(r, services.signIn);
      inviteRoutes(r, services.invites);
      openApiRoutes(r);
    },
  });
  return { ...services, area };
}
