import type { Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, type Nps } from 'nps-reconcile/testing';

export const root = resolve(import.meta.dirname, '..', '..');
export const electronMode = process.env.E2E_ELECTRON === '1';

/** The spec file's window as the journeys use it: they go on from one test to the next in it. */
export interface Session {
  page: Page;
  /** e.g. http://127.0.0.1:41234/nps */
  apiBase: string;
  dataDir: string;
  /** Browser mode: the link `serve --ui` printed (its one-time code already traded by this page). */
  link?: string;
}

/** The file's own window of the `nps` fixture (nps-reconcile/testing), opened at the first call. */
export async function session(nps: Nps): Promise<Session> {
  const page = await nps.open();
  return { page, apiBase: `${nps.url}/nps`, dataDir: nps.dataDir, link: nps.link };
}

const shotsDir = join(root, 'docs', 'screenshots');

/**
 * A picture of the screen as the accountant sees it, into test-results/screenshots; with
 * NPS_UPDATE_SCREENSHOTS=1 (`npm run screenshots`, browser mode) into docs/screenshots, so an
 * ordinary test run does not rewrite the documentation's pictures (they carry times and ports).
 */
export async function shot(page: Page, name: string): Promise<void> {
  const dir = electronMode
    ? join(root, 'test-results', 'electron-screenshots')
    : process.env.NPS_UPDATE_SCREENSHOTS === '1'
      ? shotsDir
      : join(root, 'test-results', 'screenshots');
  mkdirSync(dir, { recursive: true });
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(dir, `${name}.png`), animations: 'disabled', caret: 'hide' });
}

/** Go to a screen through the left navigation, as a user would. */
export async function openScreen(
  page: Page,
  name: 'Ledger' | 'Reconcile' | 'Tickets' | 'Balances' | 'Wallets' | 'Catalogue' | 'Address check' | 'Settings',
): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name }).click();
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
}

export const samples = join(root, 'resources', 'samples');
