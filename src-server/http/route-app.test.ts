/**
 * Route handlers see services, never the database or a repository (docs/architecture.md,
 * "Adding an endpoint"). The type checks below fail `tsc --noEmit` (run by `npm test`) if
 * `RouteApp` ever gains `db` or `repos` back; eslint and dependency-cruiser cover the rest
 * (`.repo` through a service, importing a `*-repo.ts`).
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { AppContext, RouteApp } from '../app-context.js';
import type { RouteSpec } from './route.js';

type HandlerApp = Parameters<RouteSpec['handler']>[0]['app'];

describe('what a route handler sees', () => {
  it('is RouteApp: every service, no database, no repository', () => {
    expectTypeOf<HandlerApp>().toEqualTypeOf<RouteApp>();
    expectTypeOf<HandlerApp>().not.toHaveProperty('db');
    expectTypeOf<HandlerApp>().not.toHaveProperty('repos');
    expectTypeOf<HandlerApp>().toHaveProperty('services').toEqualTypeOf<AppContext['services']>();
  });
});
