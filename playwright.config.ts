import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './e2e/fixtures/host-process';

/**
 * End-to-end suites: the built app in Debian's Chromium through the browser host (`out/main/web.js`, so run
 * `npm run build` first). Each test starts its own host, fake model and data folder (e2e/fixtures/web-host.ts).
 */
export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results/playwright',
  // Every test has its own host, model and folders, so tests within a file run side by side too.
  fullyParallel: true,
  // Each test runs Chromium, a host and a real CLI: two at a time keep two busy cores green (.ci/run sets it).
  workers: Number(process.env.BYRE_E2E_WORKERS) || 2,
  retries: 0,
  // Timeouts catch hangs; they are not for pacing. On two busy cores one turn of the real CLI can take many
  // seconds, so each is sized for the slowest machine the suite runs on.
  timeout: 150_000,
  expect: { timeout: 45_000 },
  reporter: [['list'], ['./e2e/skip-reporter.ts']],
  use: {
    // The app honours reduced motion (nothing pulses): two busy cores paint no animation frames between steps.
    reducedMotion: 'reduce',
    // A trace snapshots the page at every step, which costs a fifth of the suite's time: BYRE_E2E_TRACE=1
    // keeps one for each failing test (test-results/playwright), for a failure to be looked into.
    trace: process.env.BYRE_E2E_TRACE ? 'retain-on-failure' : 'off',
  },
  projects: [
    {
      name: 'chromium',
      testMatch: '**/*.e2e.ts',
      use: {
        browserName: 'chromium',
        headless: true,
        launchOptions: {
          executablePath: CHROMIUM_PATH,
          args: CHROMIUM_ARGS,
        },
      },
    },
    {
      // Runs where the Electron binary exists; elsewhere its tests report as skipped, with the reason.
      name: 'electron',
      testMatch: '**/*.electron.ts',
    },
  ],
});
