import { _electron, chromium, expect, test, type BrowserContext, type ElectronApplication, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { electronSqliteBinding, locateElectron, sandboxForJourneys } from '../../src/main/cli/electron-locate';
import { chromiumLaunchOptions } from './chromium';

export const root = resolve(import.meta.dirname, '..', '..');
export const electronMode = process.env.E2E_ELECTRON === '1';

/** One running app for a spec file: the window, where its /nps API listens, and its data folder. */
export interface Session {
  page: Page;
  /** e.g. http://127.0.0.1:41234/nps */
  apiBase: string;
  dataDir: string;
  /** Console errors and uncaught exceptions of the page (a CSP violation shows up here). */
  errors: string[];
  /** Browser mode: the link `serve --ui` printed (its one-time code already traded by this page). */
  link?: string;
}

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number, log: string[]): Promise<RegExpExecArray> {
  return new Promise((resolveLine, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`the service did not start within ${timeoutMs} ms:\n${log.join('')}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      log.push(chunk.toString());
      const m = pattern.exec(buffer);
      if (m) {
        clearTimeout(timer);
        resolveLine(m);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => log.push(chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code}) before it was ready:\n${log.join('')}`));
    });
  });
}

function watchErrors(page: Page, errors: string[]): void {
  page.on('console', (msg) => {
    // A refused call answers with its HTTP status and an envelope the screen shows; that is not a page error.
    if (msg.type() === 'error' && !msg.location().url.includes('/app/rpc/')) errors.push(`console: ${msg.text()} (${msg.location().url})`);
  });
  page.on('pageerror', (err) => errors.push(`page: ${err.message}`));
}

/** The window's size: 1280x800, or E2E_VIEWPORT=WIDTHxHEIGHT (e.g. 1440x900) to look at the screens larger. */
function viewport(): { width: number; height: number } {
  const m = /^(\d+)x(\d+)$/.exec(process.env.E2E_VIEWPORT ?? '');
  return m ? { width: Number(m[1]), height: Number(m[2]) } : { width: 1280, height: 800 };
}

async function browserSession(dataDir: string): Promise<Session & { close(): Promise<void> }> {
  const log: string[] = [];
  // A real process, as a user starts it: `npm run nps -- serve --ui --port 0 --data-dir <tmp>`.
  const child = spawn(process.execPath, ['scripts/nps.mjs', 'serve', '--ui', '--port', '0', '--data-dir', dataDir], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [, url] = await waitForLine(child, /NPS Reconcile \(browser mode\): (\S+)/, 90_000, log);
  // Launched here rather than taken from the `browser` fixture, so the Electron runs never need Chromium.
  const browser = await chromium.launch(chromiumLaunchOptions);
  const context: BrowserContext = await browser.newContext({ viewport: viewport(), acceptDownloads: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url!).origin });
  const page = await context.newPage();
  const errors: string[] = [];
  watchErrors(page, errors);
  await page.goto(url!);
  return {
    page,
    apiBase: `${new URL(url!).origin}/nps`,
    dataDir,
    errors,
    link: url!,
    close: async () => {
      await context.close();
      await browser.close();
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function electronSession(dataDir: string): Promise<Session & { close(): Promise<void> }> {
  const app: ElectronApplication = await _electron.launch({
    executablePath: locateElectron().path!,
    chromiumSandbox: sandboxForJourneys(locateElectron().path!),
    args: [root],
    cwd: root,
    env: { ...process.env, NPS_DATA_DIR: dataDir, NPS_PORT: '0', NPS_SQLITE_BINDING: electronSqliteBinding() } as Record<string, string>,
  });
  const page = await app.firstWindow();
  const errors: string[] = [];
  watchErrors(page, errors);
  const discovery = join(dataDir, 'api.json');
  await expect.poll(() => existsSync(discovery), { timeout: 30_000 }).toBe(true);
  const { base_url } = JSON.parse(readFileSync(discovery, 'utf8')) as { base_url: string };
  return { page, apiBase: base_url, dataDir, errors, close: () => app.close() };
}

/**
 * Start the app once for the spec file (its journeys run in order on one window), on a fresh data
 * folder, and stop it afterwards. The page must not have logged an error by then.
 */
export function useSession(): () => Session {
  let session: (Session & { close(): Promise<void> }) | undefined;
  let dataDir = '';
  test.describe.configure({ mode: 'serial' });
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    dataDir = mkdtempSync(join(tmpdir(), 'nps-e2e-'));
    session = electronMode ? await electronSession(dataDir) : await browserSession(dataDir);
  });
  test.afterEach(async () => {
    const info = test.info();
    if (session && info.status !== info.expectedStatus) {
      await info.attach('screen at failure', { body: await session.page.screenshot(), contentType: 'image/png' });
    }
  });
  test.afterAll(async () => {
    const errors = session?.errors ?? [];
    await session?.close();
    rmSync(dataDir, { recursive: true, force: true });
    expect(errors, 'errors logged by the page').toEqual([]);
  });
  return () => {
    if (!session) throw new Error('the session has not started');
    return session;
  };
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
