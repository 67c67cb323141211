import {
  _electron,
  expect as baseExpect,
  test as base,
  type Browser,
  type BrowserContext,
  type ElectronApplication,
  type LaunchOptions,
  type Page,
  type TestInfo,
} from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureBuilt } from '../scripts/build.mjs';
import { electronSqliteBinding, locateElectron, sandboxForJourneys } from '../src/main/cli/electron-locate';

/*
 * nps-reconcile/testing: Playwright's `test` and `expect` with one fixture, `nps`, which gives each
 * test file its own running service on a fresh data folder (docs/testing.md). The project's own
 * journeys start the app through it too: there is one way to start the app in tests.
 *
 * Browser mode (the default) runs `nps serve --ui` as a user does and opens its link in Chromium;
 * with E2E_ELECTRON=1 the Electron app itself runs (its main process is the service) and its
 * window is the window.
 */

/** The checkout: where the CLI and the built app are. */
const root = resolve(import.meta.dirname, '..');
const electronMode = process.env.E2E_ELECTRON === '1';
/** The CLI as a user runs it (`nps`, the package's bin), building the app first when a source is newer. */
const CLI = join(root, 'scripts', 'nps.mjs');
/** Starting takes seconds; a build first (a source newer than the last build) takes longer. */
const START_TIMEOUT_MS = 120_000;

/** What a CLI command did. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The running service of this test file. */
export interface Nps {
  /** The data folder (fresh for the file, removed after it): the store, api.json, logs. */
  readonly dataDir: string;
  /** The service's base URL, e.g. http://127.0.0.1:41234; the API is under `${url}/nps`. */
  readonly url: string;
  /** Run the CLI (`nps ARGS…`) against this data folder; its calls go through the running service. */
  run(args: string[]): Promise<RunResult>;
  /**
   * Open the app's window with a fresh session, and resolve with it once it is ready (its screens'
   * navigation shown, the service answering it). Browser mode: in `page` (Playwright's `page`
   * fixture, say). Electron: the app's own window, reloaded, whatever `page` is. Without `page`: the
   * file's own window, opened once and kept for the file's tests (journeys that go on from one
   * test to the next, in serial mode).
   */
  open(page?: Page): Promise<Page>;
  /** Browser mode: the link `serve --ui` printed when the service started (its code is good once). */
  readonly link?: string;
}

/** One test file's service, its windows and what they logged. */
interface FileService {
  nps: Nps;
  /** Console errors and uncaught exceptions of the windows since the last test ended. */
  errors: string[];
  /** The windows opened during the current test (a picture of each when it fails). */
  windows: Set<Page>;
  close(): Promise<void>;
}

function waitForLine(child: ChildProcess, pattern: RegExp, log: string[]): Promise<RegExpExecArray> {
  return new Promise((found, reject) => {
    let buffer = '';
    const timer = setTimeout(
      () => reject(new Error(`the service did not start within ${START_TIMEOUT_MS} ms:\n${log.join('')}`)),
      START_TIMEOUT_MS,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      log.push(chunk.toString());
      const m = pattern.exec(buffer);
      if (m) {
        clearTimeout(timer);
        found(m);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => log.push(chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code}) before it was ready:\n${log.join('')}`));
    });
  });
}

function watchErrors(page: Page, errors: string[]): void {
  page.on('console', (msg) => {
    // A refused call answers with its HTTP status and an envelope the screen shows; that is not a page
    // error. Nor is a broken event stream (the window opens it again by itself).
    const url = msg.location().url;
    if (msg.type() === 'error' && !url.includes('/app/rpc/') && !url.includes('/app/events'))
      errors.push(`console: ${msg.text()} (${url})`);
  });
  page.on('pageerror', (err) => errors.push(`page: ${err.message}`));
}

/** The window is ready when its navigation shows and the service answered it through this session. */
async function ready(page: Page): Promise<Page> {
  const status = page.getByRole('navigation', { name: 'Screens' }).getByText(/^(API |service unreachable)/);
  await baseExpect(status, 'the window did not show its screens').toBeVisible({ timeout: 30_000 });
  await baseExpect(status, 'the window could not reach the service').toHaveText(/^API /, { timeout: 30_000 });
  return page;
}

function runCli(dataDir: string, args: string[]): Promise<RunResult> {
  const withDir = args.includes('--data-dir') || args.some((a) => a.startsWith('--data-dir=')) ? args : [...args, '--data-dir', dataDir];
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...withDir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', fail);
    child.once('close', (code, signal) => done({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
  });
}

interface WindowOptions {
  launchOptions: LaunchOptions;
  contextOptions: Parameters<Browser['newContext']>[0];
}

/** `nps serve --ui` on the folder, as a user starts it; a used link is replaced by `nps open`'s fresh one. */
async function browserService(dataDir: string, options: WindowOptions): Promise<FileService> {
  let child: ChildProcess;
  let link = '';
  let linkUsed = false;
  const start = async (port: string) => {
    const log: string[] = [];
    child = spawn(process.execPath, [CLI, 'serve', '--ui', '--port', port, '--data-dir', dataDir], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    link = (await waitForLine(child, /NPS Reconcile \(browser mode\): (\S+)/, log))[1]!;
  };
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  await start('0');
  const origin = new URL(link).origin;
  const errors: string[] = [];
  const windows = new Set<Page>();
  let own: { browser: Browser; context: BrowserContext; page: Page } | undefined;

  /**
   * The link's code opens one session, once. A later window gets a fresh link from the running
   * service, as a user gets one (`nps open`); the windows opened before keep theirs.
   */
  const freshLink = async (): Promise<string> => {
    if (linkUsed) {
      const opened = await runCli(dataDir, ['open']);
      const fresh = /NPS Reconcile \(browser mode\): (\S+)/.exec(opened.stdout)?.[1];
      if (fresh === undefined) throw new Error(`nps open gave no link (exit ${opened.code}): ${opened.stderr}`);
      link = fresh;
    }
    linkUsed = true;
    return link;
  };
  const openIn = async (page: Page): Promise<Page> => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    watchErrors(page, errors);
    windows.add(page);
    await page.goto(await freshLink());
    return ready(page);
  };

  const nps: Nps = {
    dataDir,
    url: origin,
    get link() {
      return link;
    },
    run: (args) => runCli(dataDir, args),
    async open(page) {
      if (page) return openIn(page);
      if (!own) {
        const { chromium } = await import('@playwright/test');
        const browser = await chromium.launch(options.launchOptions);
        const context = await browser.newContext({ ...options.contextOptions, acceptDownloads: true });
        own = { browser, context, page: await context.newPage() };
        await openIn(own.page);
      }
      windows.add(own.page);
      return own.page;
    },
  };
  return {
    nps,
    errors,
    windows,
    close: async () => {
      await own?.context.close();
      await own?.browser.close();
      await stop();
    },
  };
}

/** The Electron app on the folder: its main process is the service, its window the window. */
async function electronService(dataDir: string): Promise<FileService> {
  const app: ElectronApplication = await _electron.launch({
    executablePath: locateElectron().path!,
    chromiumSandbox: sandboxForJourneys(locateElectron().path!),
    args: [root],
    cwd: root,
    env: { ...process.env, NPS_DATA_DIR: dataDir, NPS_PORT: '0', NPS_SQLITE_BINDING: electronSqliteBinding() } as Record<string, string>,
  });
  const window = await app.firstWindow();
  const errors: string[] = [];
  const windows = new Set<Page>();
  watchErrors(window, errors);
  const discovery = join(dataDir, 'api.json');
  await baseExpect.poll(() => existsSync(discovery), { timeout: 30_000 }).toBe(true);
  const { base_url } = JSON.parse(readFileSync(discovery, 'utf8')) as { base_url: string };
  let opened = false;
  const nps: Nps = {
    dataDir,
    url: base_url.replace(/\/nps\/?$/, ''),
    run: (args) => runCli(dataDir, args),
    async open(page) {
      windows.add(window);
      // A page of its own is a fresh start: the window drops what it showed and reads the store again.
      if (page && opened) await window.reload();
      opened = true;
      return ready(window);
    },
  };
  return { nps, errors, windows, close: () => app.close() };
}

/** Which file's service runs in this worker (files run one after another in a worker). */
class Services {
  private current?: { file: string; service: FileService; dataDir: string };

  constructor(readonly options: WindowOptions) {}

  async forFile(info: TestInfo): Promise<FileService> {
    if (this.current?.file === info.file) return this.current.service;
    await this.close();
    // Starting (and building, when a source is newer) is not the test's own time (0: no timeout at all).
    if (info.timeout > 0) info.setTimeout(info.timeout + START_TIMEOUT_MS);
    if (electronMode) {
      if (!locateElectron().path) throw new Error('E2E_ELECTRON=1 but no Electron binary is installed');
      if (!existsSync(electronSqliteBinding()))
        throw new Error('E2E_ELECTRON=1 but better-sqlite3 is not built for Electron: npm run electron:rebuild');
    }
    ensureBuilt();
    const dataDir = mkdtempSync(join(tmpdir(), 'nps-e2e-'));
    this.current = { file: info.file, dataDir, service: undefined as unknown as FileService };
    try {
      this.current.service = electronMode ? await electronService(dataDir) : await browserService(dataDir, this.options);
    } catch (err) {
      this.current = undefined;
      rmSync(dataDir, { recursive: true, force: true });
      throw err;
    }
    return this.current.service;
  }

  async close(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    if (!current) return;
    await current.service.close();
    rmSync(current.dataDir, { recursive: true, force: true });
  }
}

export const test = base.extend<{ nps: Nps }, { npsServices: Services }>({
  npsServices: [
    async ({ launchOptions }, use) => {
      const services = new Services({ launchOptions, contextOptions: {} });
      await use(services);
      await services.close();
    },
    { scope: 'worker', timeout: 60_000 },
  ],
  nps: async ({ npsServices, viewport }, use, info) => {
    // The file's own window is made at its first open(), with the test's viewport (the config's `use`).
    npsServices.options.contextOptions = { viewport };
    const service = await npsServices.forFile(info);
    service.errors.length = 0;
    service.windows.clear();
    await use(service.nps);
    if (info.status !== info.expectedStatus) {
      for (const window of service.windows) {
        if (!window.isClosed()) await info.attach('window at failure', { body: await window.screenshot(), contentType: 'image/png' });
      }
    }
    // The windows must not have logged an error (a CSP violation, an exception) during the test.
    baseExpect(service.errors.splice(0), 'errors logged by the window').toEqual([]);
  },
});

/**
 * Playwright's expect, with one matcher more: `expect(await nps.run([...])).toSucceed()` passes when
 * the command exited 0, and otherwise fails showing its exit code and what it printed on stderr.
 */
export const expect = baseExpect.extend({
  toSucceed(received: RunResult) {
    const pass = received.code === 0;
    return {
      pass,
      name: 'toSucceed',
      message: () =>
        pass
          ? `expected the command to fail, but it exited 0:\n${received.stdout}`
          : `expected the command to exit 0, but it exited ${received.code}:\n${received.stderr || received.stdout}`,
    };
  },
});
