import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './e2e/support/chromium';

/** The window's size: 1280x800, or E2E_VIEWPORT=WIDTHxHEIGHT (e.g. 1440x900) to look at the screens larger. */
const size = /^(\d+)x(\d+)$/.exec(process.env.E2E_VIEWPORT ?? '');

/**
 * The user journeys, against the real service: by default Debian's Chromium on the browser-mode
 * door (`serve --ui`), or the Electron app itself with E2E_ELECTRON=1 (nps-reconcile/testing,
 * docs/testing.md).
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '*.spec.ts',
  globalSetup: './e2e/support/global-setup.ts',
  // Each file starts its own service on a fresh data folder; one worker keeps two cores free enough.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : 'list',
  outputDir: 'test-results',
  use: {
    viewport: size ? { width: Number(size[1]), height: Number(size[2]) } : { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: chromiumLaunchOptions,
  },
});
