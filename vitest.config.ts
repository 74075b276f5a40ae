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
          // Timeouts catch hangs, sized for two busy cores; tests wait for states, never for time.
          testTimeout: 150_000,
          hookTimeout: 90_000,
          // Each test runs a real CLI process; two cores leave room for two at once (.ci/run sets it).
          maxWorkers: Number(process.env.BYRE_INTEGRATION_WORKERS) || 2,
        },
      },
    ],
  },
});
