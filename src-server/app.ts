import express, { type Express } from 'express';
import fs from 'node:fs';
import type { RequestListener } from 'node:http';
import path from 'node:path';
import type { AppContext } from './platform/app-context.js';
import type { Area as ServiceArea } from './platform/area.js';
import { mountSignIn } from './identity/module.js';
import type { SignInService } from './identity/module.js';
import { errorMiddleware } from './platform/http/error-handler.js';
import { localGuard } from './platform/http/guard.js';
import { plainFront } from './platform/http/plain-front.js';
import { RouteRegistry } from './platform/http/registry.js';
import { upgradeListener } from './platform/http/upgrade.js';
import { contextProxy } from './platform/http/context-proxy.js';
import type { Area } from './platform/http/route.js';

interface BuiltApps {
  registry: RouteRegistry;
  /** Serves every area (and the web UI); `inference` is set when inference has its own port. */
  main: RequestListener;
  inference?: RequestListener;
  /** The servers' `upgrade` listeners (WebSocket endpoints, http/upgrade.ts), same areas as `main` and `inference`. */
  upgrades: { main: Upgrades; inference?: Upgrades };
}

type Upgrades = ReturnType<typeof upgradeListener>;

/** Builds the request listeners (no listen): routes of every area, the guard, errors, web UI. */
export function createApp(ctx: AppContext, areas: ServiceArea[], opts: { splitInference?: boolean; signIn: SignInService }): BuiltApps {
  const registry = new RouteRegistry();
  for (const a of areas) a.routes(registry);
  const mainAreas: Area[] = opts.splitInference ? ['box', 'common'] : ['box', 'inference', 'common'];
  const main = baseApp(ctx);
  // the sidebar's service switcher: a request of the signed-in web UI may go to a saved context (serving/context-proxy.ts)
  const proxy = contextProxy(ctx);
  proxy.mount(main);
  for (const a of areas) a.mount?.(main); // before the web UI's catch-all GET
  mountWebUi(main, ctx, opts.signIn);
  registry.mount(main, ctx, mainAreas);
  main.use(errorMiddleware(ctx));
  let inference: RequestListener | undefined;
  const local = upgradeListener(registry.upgrades, ctx, mainAreas);
  const upgrades: BuiltApps['upgrades'] = {
    main: {
      listener: (req, socket, head) => {
        proxy.upgrade(req, socket, head, () => local.listener(req, socket, head));
      },
      closeAll: () => {
        proxy.closeAll();
        local.closeAll();
      },
    },
  };
  if (opts.splitInference) {
    upgrades.inference = upgradeListener(registry.upgrades, ctx, ['inference', 'common']);
    const app = baseApp(ctx);
    registry.mount(app, ctx, ['inference', 'common']);
    app.use(errorMiddleware(ctx));
    inference = plainFront(registry.specs, ctx, ['inference', 'common'], app);
  }
  // `plain` routes (the inference endpoints) skip Express: http/plain-front.ts.
  const front = plainFront(registry.specs, ctx, mainAreas, main);
  return {
    registry,
    main: (req, res) => {
      proxy.http(req, res, () => front(req, res));
    },
    inference,
    upgrades,
  };
}

function baseApp(ctx: AppContext): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(localGuard(ctx.config));
  return app;
}

/** The built renderer, served same-origin; sign-in (link or key) becomes an HttpOnly cookie. */
function mountWebUi(app: Express, ctx: AppContext, signIn: SignInService) {
  mountSignIn(app, signIn, ctx.config.webUiDir);
  const dir = ctx.config.webUiDir;
  if (!dir || !fs.existsSync(path.join(dir, 'index.html'))) return;
  app.use(express.static(dir, { index: false, maxAge: '1h' }));
  app.get(/^\/(?!v1\/|ui\/|e2b\/).*/, (_req, res) => {
    res.set('Cache-Control', 'no-store').sendFile(path.join(dir, 'index.html'));
  });
}
