import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{main,shared,renderer,e2e,preload,bench}/**/*.test.{ts,tsx}'],
          exclude: ['**/*.integration.test.ts', '**/node_modules/**'],
          // Timeouts catch hangs, not slowness: some unit tests run real git (a snapshot through a host's
          // shell is dozens of processes), which a busy 2-core machine can take well over vitest's 5 s for.
          testTimeout: 30_000,
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
