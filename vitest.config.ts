import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const include = [
  'src-server/**/*.test.ts',
  'packages/*/src/**/*.test.ts',
  'sdk/typescript/test/**/*.test.ts',
  'scripts/**/*.test.ts',
  'src-cli/**/*.test.ts',
  'src-renderer/**/*.test.ts',
  'src-main/**/*.test.ts',
];

/**
 * Issue 39: every route test (a file that starts the service through the shared harness,
 * src-server/test-support/harness.ts, or through an area's `...TestService()` helper over it) runs on both stores: once in the `sqlite` project, once
 * in the `postgres` project, whose globalSetup starts PostgreSQL 15 and whose harness gives
 * each test service a database of its own. VM tests run on SQLite, plus a smoke set on PostgreSQL.
 */
const PG_VM_SMOKE = ['src-server/areas/boxes/boxes.vm.test.ts'];
const routeTests = execFileSync(
  'git',
  ['grep', '-lE', '[sS]tart[A-Za-z]*TestService|[a-z][A-Za-z]*TestService\\(', '--', ...include.map((g) => `:(glob)${g}`)],
  { encoding: 'utf8' },
)
  .split('\n')
  .filter((f) => f && !f.endsWith('.vm.test.ts') && !f.includes('test-support/'));

export default defineConfig({
  // This checkout's contract, also where node_modules is another checkout's (a worktree's symlink)
  resolve: { alias: [{ find: /^@box\/contract\/(.*)$/, replacement: fileURLToPath(new URL('./packages/contract/src/$1.ts', import.meta.url)) }] },
  test: {
    testTimeout: 60_000,
    hookTimeout: 600_000,
    // Removes the temp dirs each test file made (data dirs with box disks: ~6 GB a run).
    setupFiles: ['src-server/test-support/temp-dirs.ts'],
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    // Test services keep no warm clones (each would be one more idle VM per test file on a
    // 2-core CI machine); runtime/templates/warm-pool.vm.test.ts turns the pool on for itself.
    // Nor do their templates start the code interpreter's kernel (BOX_CODE_WARM, ~1-2 min of
    // TCG per template build); src-server/areas/code/code.vm.test.ts turns it on for itself.
    env: { BOX_WARM_POOL: process.env.BOX_WARM_POOL ?? '0', BOX_CODE_WARM: process.env.BOX_CODE_WARM ?? '0' },
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include,
          // Fails the run on any QEMU a test left running (issue 28); counts only this run's.
          globalSetup: ['src-server/test-support/qemu-leak-check.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [...routeTests, ...PG_VM_SMOKE],
          globalSetup: ['src-server/test-support/qemu-leak-check.ts', 'src-server/test-support/pg-global.ts'],
        },
      },
    ],
  },
});
