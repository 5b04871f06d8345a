import type { AppContext, AreaModule } from '../app-context.js';
import { InboxStore } from './inbox-store.js';
import { inboxRoutes } from './routes.js';

declare module '../app-context.js' {
  interface Services {
    inbox: InboxStore;
  }
}

/** Webhook inbox for the playground: `POST /v1/inbox/hooks/{id}` records, `GET /v1/inbox` lists. */
export const inboxModule: AreaModule = {
  name: 'inbox',
  install(app: AppContext, routes) {
    const store = new InboxStore();
    app.services.inbox = store;
    inboxRoutes(routes, store, () => app);
  },
};
