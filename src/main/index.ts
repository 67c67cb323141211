import { app, BrowserWindow, dialog, ipcMain, nativeTheme, session, shell, type IpcMainInvokeEvent } from 'electron';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { ExplorerTarget } from '../shared/bridge';
import { ErrorCodes } from '../shared/errors';
import { busyMessage, isBusy, takeDataFolder, type FolderLock } from './service/data-folder';
import { REFUSED_EXIT_CODE, WINDOW_OPEN_LINE, WINDOW_SIGNAL_ENV } from './launch';
import { bindingDirIn, bindingProblem, ELECTRON_NATIVE_DIR, installedVersion, SQLITE_NODE_FILE } from './native-binding';
import { reportRuntime } from './service/app/handlers';
import { callForWindow, throttleProgress } from './service/app/call';
import { followChanges } from './service/changes';
import { SERVING_BUSY_TIMEOUT_MS } from './service/db/open';
import { ServiceError } from './service/errors';
import { sayFor } from './service/said';
import { CONTENT_SECURITY_POLICY } from './service/http/app-door';
import { DEFAULT_HOST, DEFAULT_PORT, startServer, type RunningServer } from './service/http/server';
import { openService, type Service } from './service/index';
import { failureFields, flushLog, logPlaceIn, openLog, silentLog, type LogLevel } from './service/log';
import { ShellLog } from './shell-log';
import { goneMessage, isOurMainFrame, permissionGranted, windowPolicy } from './window-rules';
import { safeStorageBox } from './safe-storage';

const here = fileURLToPath(new URL('.', import.meta.url));
const rendererIndex = join(here, '../renderer/index.html');
// Only a checkout runs electron-vite's dev server; a packaged app ignores the variable.
const devServerUrl = !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined;
const log = new ShellLog();
const internalError = (line: string) => log.error(line, { event: 'internal-error' });

// Nothing the main process throws goes unrecorded: a packaged app has no terminal to print it on.
// Electron's own handler would show a dialog and go on; so does this one, after logging it.
process.on('uncaughtException', (err) => {
  log.error(`uncaught exception in the main process: ${err.message}`, { event: 'uncaught-exception', ...failureFields(err) });
  if (app.isReady()) dialog.showErrorBox('NPS Reconcile: internal error', `${err.message}\n\nThe details are in ${log.place}.`);
});
process.on('unhandledRejection', (reason) => {
  const message = reason instanceof Error ? reason.message : String(reason);
  log.error(`unhandled rejection in the main process: ${message}`, { event: 'unhandled-rejection', ...failureFields(reason) });
});

/**
 * Where the packaged app keeps what is not code: the catalogue seed and samples (resources/) and
 * the migrations. Set rather than defaulted: an installed app takes its data and code from its own
 * package only, whatever the environment says (as the fuses refuse NODE_OPTIONS).
 */
function configurePaths(): void {
  if (!app.isPackaged) return;
  process.env.NPS_RESOURCES_DIR = join(process.resourcesPath, 'resources');
  process.env.NPS_MIGRATIONS_DIR = join(process.resourcesPath, 'migrations');
}

/**
 * better-sqlite3 built for this Electron, checked against the stamp beside it before the store
 * opens: its path, or one line saying what is wrong and what to do. An installed app uses the one
 * it carries (resources/electron-native/); a checkout its electron-native/<os>-<arch>/, or the file
 * NPS_SQLITE_BINDING names (`npm start` names the one it checked).
 */
function sqliteBinding(): { path: string } | { problem: string } {
  const file = app.isPackaged
    ? join(process.resourcesPath, ELECTRON_NATIVE_DIR, SQLITE_NODE_FILE)
    : (process.env.NPS_SQLITE_BINDING ??
      join(bindingDirIn(resolve(here, '../..'), { platform: process.platform, arch: process.arch }), SQLITE_NODE_FILE));
  const problem = bindingProblem(file, {
    electron: process.versions.electron ?? 'none (not running in Electron)',
    better_sqlite3: installedVersion(here, 'better-sqlite3'),
    platform: process.platform,
    arch: process.arch,
    abi: process.versions.modules,
  });
  if (!problem) return { path: file };
  return {
    problem: app.isPackaged
      ? `better-sqlite3 cannot be loaded: ${problem}; this installation is damaged, install NPS Reconcile again`
      : `better-sqlite3 cannot be loaded: ${problem}; run npm run electron:rebuild (npm start runs it itself)`,
  };
}

let win: BrowserWindow | undefined;
/** Starting (the store opening, perhaps being upgraded, no window yet), running, or quitting. */
let phase: 'starting' | 'running' | 'quitting' = 'starting';
/** A second launch asked for the window before it was shown: bring it forward when it is. */
let focusWhenShown = false;

const ourContents = () => (win && !win.isDestroyed() ? win.webContents : undefined);
/** Only our own window's page may call in: that webContents, its main frame (identity, not URL text). */
const fromOurPage = (event: IpcMainInvokeEvent): boolean => isOurMainFrame(event.sender, event.senderFrame, ourContents());

const refused = { status: ErrorCodes.AUTH_MISSING, data: null, msg: 'this frame may not call the service' };

/** The desktop window, as the calls it makes are marked (service/changes.ts). */
const DESKTOP_WINDOW = 'desktop';

function bridgeIpc(service: Service): void {
  ipcMain.handle('nps:call', (event, name: unknown, args: unknown, callId: unknown) => {
    if (!fromOurPage(event)) return refused;
    const onProgress =
      typeof callId === 'string'
        ? throttleProgress((progress) => !event.sender.isDestroyed() && event.sender.send('nps:progress', callId, progress))
        : undefined;
    return callForWindow(service.handlers, name, args, { actor: 'ui', window: DESKTOP_WINDOW, onProgress }, internalError, log.place);
  });
  // Others' changes (the command line, local tools, in team mode other desktops), pushed to the
  // page; its own are not news to it. Sent as they come: IPC holds nothing for a window that is gone.
  followChanges(service.ctx.changes, {
    instance: service.ctx.instance,
    window: DESKTOP_WINDOW,
    send: (change) => {
      ourContents()?.send('nps:change', change);
      return true;
    },
  });
  ipcMain.handle('nps:open-explorer', async (event, target: ExplorerTarget) => {
    if (!fromOurPage(event)) return refused;
    // The URL is built here from the catalogue's template, never taken from the page.
    const answer = await callForWindow(service.handlers, 'app-explorer-link', target, { actor: 'ui' }, internalError, log.place);
    if (answer.status !== ErrorCodes.OK) return answer;
    const { url } = answer.data as { url: string };
    if (new URL(url).protocol !== 'https:') return { status: ErrorCodes.INVALID_PARAM, data: null, msg: 'only https: links are opened' };
    await shell.openExternal(url);
    return answer;
  });
}

function lockDown(): void {
  const policy = windowPolicy(CONTENT_SECURITY_POLICY, devServerUrl);
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [policy] } });
  });
  // Most web APIs check a permission first and request it when the check says no: both answer alike.
  session.defaultSession.setPermissionRequestHandler((contents, permission, callback, details) =>
    callback(permissionGranted(permission, contents === ourContents() && details.isMainFrame)),
  );
  session.defaultSession.setPermissionCheckHandler((contents, permission, _origin, details) =>
    permissionGranted(permission, contents !== null && contents === ourContents() && details.isMainFrame),
  );
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-navigate', (event) => event.preventDefault());
    contents.on('will-redirect', (event) => event.preventDefault());
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });
  app.on('child-process-gone', (_event, details) => {
    if (details.reason === 'clean-exit') return;
    log.error(`Electron's ${details.type} process is gone: ${details.reason} (exit code ${details.exitCode})`, {
      event: 'child-process-gone',
      type: details.type,
      reason: details.reason,
      exit_code: details.exitCode,
    });
  });
}

/** The renderer died (crash, out of memory, killed): say so in the log, and offer to reload the window. */
function windowGone(w: BrowserWindow, details: { reason: string; exitCode: number }): void {
  log.error(`the window's renderer process is gone: ${details.reason} (exit code ${details.exitCode})`, {
    event: 'render-process-gone',
    reason: details.reason,
    exit_code: details.exitCode,
  });
  if (phase === 'quitting' || details.reason === 'clean-exit' || w.isDestroyed()) return;
  const { message, detail } = goneMessage(details, log.place);
  void dialog
    .showMessageBox(w, {
      type: 'error',
      title: 'NPS Reconcile',
      message,
      detail,
      buttons: ['Reload the window', 'Quit'],
      defaultId: 0,
      cancelId: 1,
    })
    .then(({ response }) => {
      if (phase === 'quitting' || w.isDestroyed()) return;
      if (response === 0) w.webContents.reload();
      else app.quit();
    });
}

function openWindow(): BrowserWindow {
  const w = new BrowserWindow({
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
  // The window's own errors go to the log: a packaged app has no terminal, and the page says to look there.
  const contents = w.webContents;
  contents.on('console-message', ({ level, message, sourceId, lineNumber }) => {
    const fields = { event: 'window-console', level, message, source: sourceId, line: lineNumber };
    const line = `window console ${level}: ${message} (${sourceId}:${lineNumber})`;
    if (level === 'error') log.error(line, fields);
    else if (level === 'warning') log.warn(line, fields);
  });
  contents.on('preload-error', (_event, preloadPath, error) =>
    log.error(`the window's preload failed: ${error.message}`, { event: 'preload-error', path: preloadPath, ...failureFields(error) }),
  );
  contents.on('did-fail-load', (_event, code, description, url, isMainFrame) => {
    if (isMainFrame) log.error(`the window's page did not load: ${description} (${code})`, { event: 'did-fail-load', code, url });
  });
  contents.on('unresponsive', () => log.warn('the window stopped responding', { event: 'unresponsive' }));
  contents.on('render-process-gone', (_event, details) => windowGone(w, details));
  w.once('ready-to-show', () => {
    w.show();
    if (focusWhenShown) w.focus();
    if (process.env[WINDOW_SIGNAL_ENV] === '1') process.stdout.write(`${WINDOW_OPEN_LINE}\n`);
  });
  if (devServerUrl) void w.loadURL(devServerUrl);
  else void w.loadFile(rendererIndex);
  return w;
}

/**
 * The /nps API on NPS_PORT (8730 by default). A port another program holds moves the API to a
 * free one rather than leaving none: startServer writes api.json with the port it got, so the
 * command line and local tools find this service (and never open the store beside it).
 */
async function startApiServer(service: Service, logger: Logger): Promise<RunningServer | undefined> {
  const host = process.env.NPS_HOST ?? DEFAULT_HOST;
  const asked = process.env.NPS_PORT;
  const port = asked === undefined || asked === '' ? DEFAULT_PORT : Number(asked);
  const failed = (error: string) => {
    log.error(`API server not started: ${error}`, { event: 'api-not-started', error });
    reportRuntime(service.ctx, { api: { state: 'failed', base_url: null, host, port: Number.isInteger(port) ? port : null, error } });
    return undefined;
  };
  if (!Number.isInteger(port) || port < 0 || port > 65535) return failed(`NPS_PORT: must be an integer from 0 to 65535, got ${asked}`);
  const listen = (p: number) => startServer(service, { host, port: p, log: internalError, logger });
  let server: RunningServer;
  try {
    server = await listen(port).catch(async (err: unknown) => {
      if ((err as { code?: string }).code !== 'EADDRINUSE' || port === 0) throw err;
      const moved = await listen(0);
      log.warn(`port ${port} is in use; the API listens on ${moved.url}/nps instead (api.json in the data folder names it)`, {
        event: 'api-port-moved',
        wanted: port,
        port: moved.port,
      });
      return moved;
    });
  } catch (err) {
    return failed(err instanceof Error ? err.message : String(err));
  }
  reportRuntime(service.ctx, { api: { state: 'running', base_url: `${server.url}/nps`, host, port: server.port, error: null } });
  return server;
}

let logger: Logger | undefined;
let service: Service | undefined;
let server: RunningServer | undefined;
/** The data folder's writer lock (data-folder.ts), held for the app's life. */
let folder: FolderLock | undefined;

/** Refuse to start, said once: in the log, on stderr and in a dialog; `npm start` knows by the exit code. */
function refuse(line: string, dialogText = line, fields: Record<string, unknown> = {}): void {
  log.error(line, { event: 'refused', ...fields });
  dialog.showErrorBox('NPS Reconcile cannot start', dialogText);
  void (logger ? flushLog(logger) : Promise.resolve()).finally(() => app.exit(REFUSED_EXIT_CODE));
}

async function start(): Promise<void> {
  lockDown();
  configurePaths();
  const dataDir = app.getPath('userData');
  // The log lives in the data folder (logs/); without one, the app still runs and says so.
  const openAppLog = async (): Promise<Logger> => {
    const opened = await openLog(dataDir, (process.env.NPS_LOG_LEVEL as LogLevel | undefined) ?? 'info').catch((err: unknown) => {
      log.error(`no log file in ${dataDir}: ${err instanceof Error ? err.message : String(err)}`, { event: 'no-log' });
      return silentLog;
    });
    if (opened !== silentLog) log.attach(opened, logPlaceIn(dataDir));
    return (logger = opened);
  };
  // The lock is taken with SQLite: Electron's own build of it first. Refused without one, the
  // app still says why in the folder's log (a packaged app has no terminal).
  const binding = sqliteBinding();
  if ('problem' in binding) {
    await openAppLog();
    return refuse(binding.problem);
  }
  // One data folder, one writer: the folder's lock, held for the app's life. A `serve` (or a
  // command) already on it keeps it; this window would fight it over the store.
  const taken = takeDataFolder(dataDir, { nativeBinding: binding.path });
  if (isBusy(taken)) {
    const said = await busyMessage(dataDir, taken);
    const other = sayFor(said, 'window');
    return refuse(sayFor(said, 'cli'), `${other[0]!.toUpperCase()}${other.slice(1)}.`);
  }
  folder = taken;
  const appLog = await openAppLog();
  try {
    service = openService({
      logger: appLog,
      busyTimeoutMs: SERVING_BUSY_TIMEOUT_MS,
      // Node URLs (a chain's node, often with its provider's key) sealed with the system's keychain.
      secretBox: safeStorageBox(),
      dataDir,
      nativeBinding: binding.path,
      own: true,
      onWarning: (line) => log.warn(line, { event: 'data-folder' }),
      onUpgrade: (pending) => log.info(`bringing the data in ${dataDir} up to date: ${pending.join(', ')}`, { event: 'upgrade', pending }),
    });
  } catch (err) {
    // Without the store there is nothing to show: say why and stop. A store that cannot be used
    // (not a store, damaged, read-only, full, locked, of a newer version) is a ServiceError whose
    // one line names the file, the cause and what to do.
    // The window's words for what to do (said.ts): another data folder, not a flag.
    if (err instanceof ServiceError)
      return refuse(`cannot open the data in ${dataDir}: ${sayFor(err.message, 'cli')}`, sayFor(err.message, 'window'));
    const reason = err instanceof Error ? err.message : String(err);
    return refuse(
      `cannot open the data in ${dataDir}: ${reason}`,
      `The data folder ${dataDir} could not be opened:\n\n${reason}\n\nThe details are in ${log.place}.`,
      failureFields(err),
    );
  }
  reportRuntime(service.ctx, { mode: 'electron', version: app.getVersion() });
  bridgeIpc(service);
  server = await startApiServer(service, appLog);
  if (phase === 'quitting') return;
  win = openWindow();
  phase = 'running';
}

// Everything the service writes (the store, logs, api.json) is this user's alone.
process.umask(0o077);

// A data folder of its own (tests, a second set of books) is a separate instance with its own
// lock. Electron wants it absolute; a relative one is taken from the folder the app started in.
if (process.env.NPS_DATA_DIR) app.setPath('userData', resolve(process.env.NPS_DATA_DIR));

if (!app.requestSingleInstanceLock()) {
  // The copy already running on this folder brings its window forward (second-instance below).
  if (process.env[WINDOW_SIGNAL_ENV] === '1')
    process.stdout.write(`${WINDOW_OPEN_LINE} (the copy already running on ${app.getPath('userData')} brought it forward)\n`);
  app.quit();
} else {
  app.on('second-instance', () => {
    // Quitting: nothing to bring forward. Starting (the store opening or being brought up to date):
    // the window is focused once it is shown.
    if (phase === 'quitting') return;
    if (!win || win.isDestroyed() || !win.isVisible()) {
      focusWhenShown = true;
      return;
    }
    if (win.isMinimized()) win.restore();
    win.focus();
  });
  const startup = app.whenReady().then(start);
  startup.catch((err: unknown) => {
    const reason = err instanceof Error ? err.message : String(err);
    refuse(`NPS Reconcile could not start: ${reason}`, `${reason}\n\nThe details are in ${log.place}.`, failureFields(err));
  });
  app.on('before-quit', () => {
    phase = 'quitting';
  });
  let closed = false;
  app.on('will-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    closed = true;
    phase = 'quitting';
    // A quit while starting waits for the start to finish what it opened, then closes all of it.
    void startup
      .catch(() => undefined)
      .then(() => server?.close())
      .finally(() => service?.close())
      .catch((err: unknown) => log.error(`closing: ${err instanceof Error ? err.message : String(err)}`, { event: 'close-failed' }))
      .finally(() => (logger ? flushLog(logger) : undefined))
      .finally(() => folder?.release())
      .finally(() => app.quit());
  });
  app.on('window-all-closed', () => app.quit());
}
