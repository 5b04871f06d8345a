import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test PostgreSQL server (the `postgres` project of vitest.config.ts); each test service gets a database of its own on it. */
    pgUrl: string;
  }
}

/**
 * vitest globalSetup of the `postgres` project: one PostgreSQL 15 server for the run
 * (test-support/postgres.ts), stopped and removed at the end.
 */
// ts-unused-exports:disable-next-line
export default async function setup(project: TestProject) {
  const server = await startPostgres();
  project.provide('pgUrl', server.url);
  return () => server.stop();
}
