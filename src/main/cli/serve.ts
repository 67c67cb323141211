import { reportRuntime } from '../service/app/handlers';
import { newUiCode, uiLink, type UiOptions } from '../service/http/app-door';
import { startServer, DEFAULT_HOST, DEFAULT_PORT } from '../service/http/server';
import { openService } from '../service/index';
import { defaultDataDir } from '../service/paths';
import { dataDirFrom, dataDirOption, parseFlags, sayUpgrade, sayWarning } from './common';
import { UsageError } from './errors';
import { projectVersion, rendererOutDir } from './project';
import { busyMessage, isBusy, takeDataFolder } from '../service/data-folder';
import { ServiceError } from '../service/errors';
import { ErrorCodes } from '../../shared/errors';
import { SERVING_BUSY_TIMEOUT_MS } from '../service/db/open';
import { flushLog, LOG_LEVELS, logPlaceIn, openLog, silentLog, type LogLevel } from '../service/log';
import { sayFor } from '../service/said';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

export async function serveCommand(args: string[]): Promise<void> {
  const { values } = parseFlags(args, {
    port: { type: 'string' },
    host: { type: 'string' },
    ui: { type: 'boolean' },
    'nonce-window': { type: 'string' },
    'rate-limit': { type: 'string' },
    'read-limit': { type: 'string' },
    'auth-fail-limit': { type: 'string' },
    'max-verifies': { type: 'string' },
    'max-imports': { type: 'string' },
    'request-timeout': { type: 'string' },
    'max-connections': { type: 'string' },
    'session-idle': { type: 'string' },
    'log-level': { type: 'string' },
    ...dataDirOption,
  });
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port: must be an integer from 0 to 65535, got ${values.port}`);
  const host = values.host ?? DEFAULT_HOST;
  const nonceWindow = values['nonce-window'] === undefined ? undefined : Number(values['nonce-window']);
  if (nonceWindow !== undefined && !(Number.isInteger(nonceWindow) && nonceWindow >= 1))
    throw new UsageError(`--nonce-window: must be a whole number of seconds >= 1, got ${values['nonce-window']}`);
  const perMinute = (flag: 'rate-limit' | 'read-limit' | 'auth-fail-limit'): number | undefined => {
    const text = values[flag];
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!(Number.isInteger(n) && n >= 0))
      throw new UsageError(`--${flag}: must be a whole number of requests a minute (0: no limit), got ${text}`);
    return n;
  };
  const limits = { signed: perMinute('rate-limit'), reads: perMinute('read-limit'), failedAuth: perMinute('auth-fail-limit') };
  const atLeastOne = (
    flag: 'max-verifies' | 'max-imports' | 'request-timeout' | 'max-connections' | 'session-idle',
    what: string,
  ): number | undefined => {
    const text = values[flag];
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!(Number.isInteger(n) && n >= 1)) throw new UsageError(`--${flag}: must be a whole number of ${what} >= 1, got ${text}`);
    return n;
  };
  const maxVerifies = atLeastOne('max-verifies', 'requests');
  const maxImports = atLeastOne('max-imports', 'import jobs');
  const requestTimeout = atLeastOne('request-timeout', 'seconds');
  const maxConnections = atLeastOne('max-connections', 'connections');
  const sessionIdle = atLeastOne('session-idle', 'minutes');
  const rateLimit = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
  // Whoever holds the window's session drives the app: only this machine may be offered one.
  if (values.ui && !LOOPBACK_HOSTS.has(host))
    throw new UsageError(`--host: the screens (--ui) are served on loopback only (127.0.0.1, localhost, ::1), not ${host}`);
  const ui: UiOptions | undefined = values.ui
    ? { dir: rendererOutDir(), code: newUiCode(), ...(sessionIdle !== undefined ? { idleMinutes: sessionIdle } : {}) }
    : undefined;
  const dataDir = dataDirFrom(values['data-dir']);
  const level = values['log-level'] ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new UsageError(`--log-level: must be one of ${LOG_LEVELS.join(', ')}, got ${level}`);
  // One data folder, one writer: the folder's lock, taken before anything is written there and
  // held until the process ends; a second service on it would fight the first over the store.
  let folder;
  try {
    folder = takeDataFolder(dataDir);
  } catch (err) {
    throw new ServiceError(
      ErrorCodes.STORE_UNAVAILABLE,
      `the data folder ${dataDir} cannot be created (${(err as Error).message}); point --data-dir elsewhere`,
    );
  }
  if (isBusy(folder)) throw new UsageError(sayFor(await busyMessage(dataDir, folder), 'cli'));
  // Without a log file the service still runs, and says so in one line, once the store has
  // opened (a read-only folder is then the store's own one-line refusal).
  let noLog: string | undefined;
  const logger = await openLog(dataDir, level as LogLevel).catch((err: unknown) => {
    noLog = `no log file in ${dataDir}: ${err instanceof Error ? err.message : String(err)}; serving without a log`;
    return silentLog;
  });
  const service = openService({
    dataDir,
    onUpgrade: sayUpgrade,
    logger,
    busyTimeoutMs: SERVING_BUSY_TIMEOUT_MS,
    own: dataDir === defaultDataDir(),
    onWarning: sayWarning,
  });
  if (noLog) process.stderr.write(`${noLog}\n`);
  if (ui) ui.logPlace = noLog ? 'the output of `serve` (it could write no log file)' : logPlaceIn(dataDir);
  let server;
  try {
    server = await startServer(service, {
      host,
      port,
      ui,
      logger,
      ...(nonceWindow !== undefined ? { auth: { nonceWindowMs: nonceWindow * 1000 } } : {}),
      rateLimit,
      ...(maxVerifies !== undefined ? { admissionBound: maxVerifies } : {}),
      ...(maxImports !== undefined ? { importBound: maxImports } : {}),
      ...(requestTimeout !== undefined ? { requestTimeoutMs: requestTimeout * 1000 } : {}),
      ...(maxConnections !== undefined ? { maxConnections } : {}),
    });
  } catch (err) {
    service.close();
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new UsageError(`--port: ${port} is already in use; pick another or pass --port 0`);
    throw err;
  }
  reportRuntime(service.ctx, {
    mode: ui ? 'browser' : 'headless',
    version: projectVersion(),
    api: { state: 'running', base_url: `${server.url}/nps`, host, port: server.port, error: null },
  });
  const running = server;
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    process.stdout.write(`${signal}: closing\n`);
    logger.info({ event: 'stop', signal });
    running
      .close()
      .finally(() => service.close())
      .finally(() => flushLog(logger))
      .finally(() => folder.release())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  // Before the lines below announce the service: a Ctrl-C (or a script's SIGTERM) sent as soon as
  // they appear must close it cleanly (api.json removed), not find no handler and kill it.
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.stdout.write(`NPS service listening on ${server.url}/nps (data: ${dataDir})\n`);
  logger.info({ event: 'start', url: `${server.url}/nps`, data_dir: dataDir, mode: ui ? 'browser' : 'headless' });
  // The link works once: the page trades its code for this browser's session (http/app-door.ts).
  if (ui) process.stdout.write(`NPS Reconcile (browser mode): ${uiLink(server.url, ui.code)}\n`);
}
