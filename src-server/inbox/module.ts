import type { AppBase, Area } from '../app-context.js';
import { InboxStore } from './inbox-store.js';
import { inboxRoutes } from './routes.js';

/** Webhook inbox for the playground: `POST /v1/inbox/hooks/{id}` records, `GET /v1/inbox` lists. */
export function inboxArea(app: AppBase) {
  const inbox = new InboxStore();
  const area: Area = { name: 'inbox', routes: (r) => inboxRoutes(r, inbox, () => app) };
  return { inbox, area };
}
