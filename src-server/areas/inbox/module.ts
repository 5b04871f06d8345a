import type { AppBase } from '../../platform/app-context.js';
import type { Area } from '../../platform/area.js';
import { InboxRepo } from './inbox-repo.js';
import { InboxService } from './inbox-service.js';
import { inboxRoutes } from './inbox-routes.js';

/**
 * Webhook inbox for the playground: `POST /v1/inbox/hooks/{id}` records, `GET /v1/inbox`
 * lists; kept in SQLite. Tuning: `inboxMaxBytesPerOrg` (bytes kept per organization).
 */
export function inboxArea(app: AppBase) {
  const inbox = new InboxService(new InboxRepo(app.db), (id) => `${app.baseUrl()}/v1/inbox/hooks/${id}`, app.config.tuning.inboxMaxBytesPerOrg);
  const area: Area = { name: 'inbox', routes: (r) => inboxRoutes(r, inbox) };
  return { inbox, area };
}
export type { InboxService } from './inbox-service.js';
