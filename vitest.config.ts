import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{main,shared,renderer,e2e,preload}/**/*.test.{ts,tsx}'],
          exclude: ['**/*.integration.test.ts', 'node_modules/**'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['{main,e2e}/**/*.integration.test.ts'],
          testTimeout: 90_000,
          hookTimeout: 60_000,
          // Each test runs a real CLI process; two cores leave room for two at once.
          maxWorkers: 2,
        },
      },
    ],
  },
});
