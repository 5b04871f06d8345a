import type { AppContext, AreaModule } from '../app-context.js';
import { InboxStore, MAX_KEPT_BYTES_PER_ORG } from './inbox-store.js';
import { inboxRoutes } from './routes.js';

declare module '../app-context.js' {
  interface Services {
    inbox: InboxStore;
  }
}

/** Webhook inbox for the playground: `POST /v1/inbox/hooks/{id}` records, `GET /v1/inbox` lists. Tuning: `inboxMaxBytesPerOrg`. */
export const inboxModule: AreaModule = {
  name: 'inbox',
  install(app: AppContext, routes) {
    const store = new InboxStore(app.db, Number(app.config.tuning.inboxMaxBytesPerOrg ?? MAX_KEPT_BYTES_PER_ORG));
    app.services.inbox = store;
    inboxRoutes(routes, store, () => app);
  },
};
