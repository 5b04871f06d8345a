import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src-server/**/*.test.ts', 'src-cli/**/*.test.ts', 'src-renderer/**/*.test.ts', 'src-main/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
