import { app, BrowserWindow, dialog, ipcMain, nativeTheme, session, shell, type IpcMainInvokeEvent } from 'electron';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ExplorerTarget } from '../shared/bridge';
import { ErrorCodes } from '../shared/errors';
import { reportRuntime } from './service/app/handlers';
import { callForWindow, throttleProgress } from './service/app/call';
import { ServiceError } from './service/errors';
import { CONTENT_SECURITY_POLICY } from './service/http/app-door';
import { DEFAULT_HOST, DEFAULT_PORT, startServer, type RunningServer } from './service/http/server';
import { otherServiceOn } from './cli/running';
import { openService, type Service } from './service/index';
import type { Logger } from 'pino';
import { flushLog, openLog, silentLog, type LogLevel } from './service/log';
import { SERVING_BUSY_TIMEOUT_MS } from './service/db/open';
import { ELECTRON_NATIVE_DIR, SQLITE_NODE_FILE } from './native-binding';
import { safeStorageBox } from './safe-storage';

const here = fileURLToPath(new URL('.', import.meta.url));
const rendererIndex = join(here, '../renderer/index.html');
const devServerUrl = !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined;
const log = (line: string) => process.stderr.write(line + '\n');

/**
 * Where the packaged app keeps what is not code: the catalogue seed and samples (resources/), the
 * migrations, and better-sqlite3 built for Electron. From a checkout, the same folders of the checkout.
 */
function configurePaths(): { nativeBinding?: string } {
  const appRoot = app.isPackaged ? process.resourcesPath : resolve(here, '../..');
  if (app.isPackaged) {
    process.env.NPS_RESOURCES_DIR ??= join(process.resourcesPath, 'resources');
    process.env.NPS_MIGRATIONS_DIR ??= join(process.resourcesPath, 'migrations');
  }
  const binding = process.env.NPS_SQLITE_BINDING ?? join(appRoot, ELECTRON_NATIVE_DIR, SQLITE_NODE_FILE);
  return existsSync(binding) ? { nativeBinding: binding } : {};
}

/** Only our own page may call in: the built file, or electron-vite's dev server. */
function fromOurPage(event: IpcMainInvokeEvent): boolean {
  const url = event.senderFrame?.url ?? '';
  if (devServerUrl) return url.startsWith(devServerUrl);
  return url === pathToFileURL(rendererIndex).href || url.startsWith(pathToFileURL(rendererIndex).href + '#');
}

const refused = { status: ErrorCodes.AUTH_MISSING, data: null, msg: 'this frame may not call the service' };

function bridgeIpc(service: Service): void {
  ipcMain.handle('nps:call', (event, name: unknown, args: unknown, callId: unknown) => {
    if (!fromOurPage(event)) return refused;
    const onProgress =
      typeof callId === 'string'
        ? throttleProgress((progress) => !event.sender.isDestroyed() && event.sender.send('nps:progress', callId, progress))
        : undefined;
    return callForWindow(service.handlers, name, args, { actor: 'ui', onProgress }, log);
  });
  ipcMain.handle('nps:open-explorer', async (event, target: ExplorerTarget) => {
    if (!fromOurPage(event)) return refused;
    // The URL is built here from the catalogue's template, never taken from the page.
    const answer = await callForWindow(service.handlers, 'app-explorer-link', target, { actor: 'ui' }, log);
    if (answer.status !== ErrorCodes.OK) return answer;
    const { url } = answer.data as { url: string };
    if (new URL(url).protocol !== 'https:') return { status: ErrorCodes.INVALID_PARAM, data: null, msg: 'only https: links are opened' };
    await shell.openExternal(url);
    return answer;
  });
}

function lockDown(): void {
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event) => event.preventDefault());
    contents.on('will-redirect', (event) => event.preventDefault());
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });
}

function openWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 1024,
    minHeight: 640,
    show: false,
    title: 'NPS Reconcile',
    // The page's own background in the system's scheme (styles.css --bg), so a dark desktop sees no light frame.
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#0e131b' : '#f5f6f8',
    webPreferences: {
      preload: join(here, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  win.once('ready-to-show', () => win.show());
  if (devServerUrl) void win.loadURL(devServerUrl);
  else void win.loadFile(rendererIndex);
  return win;
}

async function startApiServer(service: Service, logger: Logger): Promise<RunningServer | undefined> {
  const port = process.env.NPS_PORT ? Number(process.env.NPS_PORT) : DEFAULT_PORT;
  const host = process.env.NPS_HOST ?? DEFAULT_HOST;
  try {
    const server = await startServer(service, { host, port, log, logger });
    reportRuntime(service.ctx, { api: { state: 'running', base_url: `${server.url}/nps`, host, port: server.port, error: null } });
    return server;
  } catch (err) {
    const code = (err as { code?: string }).code;
    const error =
      code === 'EADDRINUSE'
        ? `port ${port} is already in use (another copy of the service?)`
        : err instanceof Error
          ? err.message
          : String(err);
    log(`API server not started: ${error}`);
    reportRuntime(service.ctx, { api: { state: 'failed', base_url: null, host, port, error } });
    return undefined;
  }
}

// A data folder of its own (tests, a second set of books) is a separate instance with its own lock.
if (process.env.NPS_DATA_DIR) app.setPath('userData', process.env.NPS_DATA_DIR);

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  let win: BrowserWindow | undefined;
  app.on('second-instance', () => {
    if (win?.isMinimized()) win.restore();
    win?.focus();
  });
  app.whenReady().then(async () => {
    lockDown();
    const dataDir = app.getPath('userData');
    // One data folder, one writer: a `serve` already on it keeps it; this window would fight it over the store.
    const other = otherServiceOn(dataDir);
    if (other) {
      log(other);
      dialog.showErrorBox('NPS Reconcile cannot start', `${other[0]!.toUpperCase()}${other.slice(1)}.`);
      app.exit(1);
      return;
    }
    let service: Service;
    // The log lives in the data folder (logs/); without one, the app still runs and says so.
    const logger = await openLog(dataDir, (process.env.NPS_LOG_LEVEL as LogLevel | undefined) ?? 'info').catch((err: unknown) => {
      log(`no log file in ${dataDir}: ${err instanceof Error ? err.message : String(err)}`);
      return silentLog;
    });
    try {
      service = openService({
        logger,
        busyTimeoutMs: SERVING_BUSY_TIMEOUT_MS,
        // Node URLs (a chain's node, often with its provider's key) sealed with the system's keychain.
        secretBox: safeStorageBox(),
        dataDir,
        ...configurePaths(),
        onUpgrade: (pending) => log(`bringing the data in ${dataDir} up to date: ${pending.join(', ')}`),
      });
    } catch (err) {
      // Without the store there is nothing to show: say why and stop. A store that cannot be used
      // (not a store, damaged, read-only, full, locked, of a newer version) is a ServiceError whose
      // one line names the file, the cause and what to do; anything else is most often
      // better-sqlite3 not built for this Electron.
      if (err instanceof ServiceError) {
        log(`cannot open the data in ${dataDir}: ${err.message}`);
        dialog.showErrorBox('NPS Reconcile cannot start', err.message);
      } else {
        const reason = err instanceof Error ? err.message : String(err);
        log(`cannot open the data in ${dataDir}: ${err instanceof Error ? (err.stack ?? reason) : reason}`);
        dialog.showErrorBox(
          'NPS Reconcile cannot start',
          `The data folder ${dataDir} could not be opened:\n\n${reason}\n\nFrom a checkout, run npm run electron:rebuild.`,
        );
      }
      app.exit(1);
      return;
    }
    reportRuntime(service.ctx, { mode: 'electron', version: app.getVersion() });
    bridgeIpc(service);
    const server = await startApiServer(service, logger);
    win = openWindow();
    let closed = false;
    app.on('will-quit', (event) => {
      if (closed) return;
      event.preventDefault();
      closed = true;
      void (server?.close() ?? Promise.resolve())
        .finally(() => service.close())
        .finally(() => flushLog(logger))
        .finally(() => app.quit());
    });
  });
  app.on('window-all-closed', () => app.quit());
}
