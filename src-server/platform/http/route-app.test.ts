/**
 * Route handlers see configuration, never the database, a repository or the table of all
 * services: their routes function is handed the services it uses (docs/architecture.md,
 * "Adding an endpoint"). The type checks below fail `tsc --noEmit` (run by `npm test`) if
 * `RouteApp` ever gains `db`, `repos` or `services` back; eslint and dependency-cruiser cover
 * the rest (`.repo` through a service, importing a `*-repo.ts`).
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { RouteApp } from '../app-context.js';
import type { RouteSpec } from './route.js';

type HandlerApp = Parameters<RouteSpec['handler']>[0]['app'];

describe('what a route handler sees', () => {
  it('is RouteApp: no database, no repository, no service table', () => {
    expectTypeOf<HandlerApp>().toEqualTypeOf<RouteApp>();
    expectTypeOf<HandlerApp>().not.toHaveProperty('db');
    expectTypeOf<HandlerApp>().not.toHaveProperty('repos');
    expectTypeOf<HandlerApp>().not.toHaveProperty('services');
  });
});
