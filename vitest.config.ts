import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'src-server/**/*.test.ts',
      'sdk/typescript/test/**/*.test.ts',
      'scripts/**/*.test.ts',
      'src-cli/**/*.test.ts',
      'src-renderer/**/*.test.ts',
      'src-main/**/*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    // Fails the run on any QEMU a test left running (issue 28); counts only this run's.
    globalSetup: ['src-server/test-support/qemu-leak-check.ts'],
    // Removes the temp dirs each test file made (data dirs with box disks: ~6 GB a run).
    setupFiles: ['src-server/test-support/temp-dirs.ts'],
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    // Test services keep no warm clones (each would be one more idle VM per test file on a
    // 2-core CI machine); runtime/templates/warm-pool.vm.test.ts turns the pool on for itself.
    // Nor do their templates start the code interpreter's kernel (BOX_CODE_WARM, ~1-2 min of
    // TCG per template build); src-server/code/code.vm.test.ts turns it on for itself.
    env: { BOX_WARM_POOL: process.env.BOX_WARM_POOL ?? '0', BOX_CODE_WARM: process.env.BOX_CODE_WARM ?? '0' },
  },
});
