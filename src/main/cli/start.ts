import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { dataDirOption, parseFlags } from './common';
import { electronSqliteBinding, locateElectron, requireHere } from './electron-locate';
import { projectRoot } from './project';
import { serveCommand } from './serve';

/** Last meaningful line of a child's output: the reason, without its stack. */
function reasonFrom(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('at '));
  return lines.at(-1) ?? 'no output';
}

/**
 * The Electron binary, downloading it on first use as `electron` itself would, but quietly and
 * without its stack trace: either a path, or the reason there is none.
 */
export function findElectron(): { path: string } | { reason: string } {
  const found = locateElectron();
  if (found.path) return { path: found.path };
  if (!found.pkgDir) return { reason: 'the electron package is not installed' };
  // Electron's own switch for "never fetch the binary" (offline machines, CI).
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD)
    return { reason: 'no Electron binary is installed and ELECTRON_SKIP_BINARY_DOWNLOAD is set' };
  const version = (JSON.parse(readFileSync(join(found.pkgDir, 'package.json'), 'utf8')) as { version: string }).version;
  const r = spawnSync(process.execPath, [join(found.pkgDir, 'install.js')], { encoding: 'utf8', timeout: 10 * 60_000 });
  const after = locateElectron();
  if (after.path) return { path: after.path };
  return { reason: `the Electron ${version} binary could not be downloaded (${reasonFrom(`${r.stdout ?? ''}\n${r.stderr ?? ''}`)})` };
}

/** better-sqlite3 for Electron, built once by `npm run electron:rebuild`. */
function ensureElectronSqlite(): { path: string } | { reason: string } {
  const binding = electronSqliteBinding();
  if (existsSync(binding)) return { path: binding };
  process.stderr.write('building better-sqlite3 for Electron (npm run electron:rebuild)...\n');
  const tsx = join(dirname(requireHere.resolve('tsx/package.json')), 'dist', 'cli.mjs');
  const r = spawnSync(process.execPath, [tsx, 'scripts/electron-rebuild.ts'], {
    cwd: projectRoot,
    stdio: ['ignore', 'inherit', 'pipe'],
    encoding: 'utf8',
  });
  if (existsSync(binding)) return { path: binding };
  return { reason: `better-sqlite3 could not be built for Electron (${reasonFrom(r.stderr ?? '')})` };
}

function runElectron(electron: string, binding: string, values: { port?: string; 'data-dir'?: string }): Promise<void> {
  // The app runs the build in out/, which `npm start` brought up to date before this ran (scripts/nps.mjs).
  const env: NodeJS.ProcessEnv = { ...process.env, NPS_SQLITE_BINDING: binding };
  if (values.port !== undefined) env.NPS_PORT = values.port;
  if (values['data-dir'] !== undefined) env.NPS_DATA_DIR = values['data-dir'];
  const child = spawn(electron, ['.'], { cwd: projectRoot, stdio: 'inherit', env });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      process.exitCode = code ?? 1;
      resolve();
    });
  });
}

export async function startCommand(args: string[]): Promise<void> {
  const { values } = parseFlags(args, { browser: { type: 'boolean' }, port: { type: 'string' }, ...dataDirOption });
  const serveArgs = [
    '--ui',
    ...(values.port !== undefined ? ['--port', values.port] : []),
    ...(values['data-dir'] !== undefined ? ['--data-dir', values['data-dir']] : []),
  ];
  if (values.browser) return serveCommand(serveArgs);
  const electron = findElectron();
  const binding = 'path' in electron ? ensureElectronSqlite() : undefined;
  if ('reason' in electron || (binding && 'reason' in binding)) {
    const reason = 'reason' in electron ? electron.reason : (binding as { reason: string }).reason;
    process.stdout.write(`Electron is not available here: ${reason}; starting browser mode instead.\n`);
    return serveCommand(serveArgs);
  }
  try {
    await runElectron(electron.path, (binding as { path: string }).path, values);
  } catch (err) {
    const reason =
      (err as { code?: string }).code === 'ENOENT' || (err as { code?: string }).code === 'EACCES'
        ? 'the Electron binary would not start'
        : undefined;
    if (!reason) throw err;
    process.stdout.write(`Electron is not available here: ${reason}; starting browser mode instead.\n`);
    return serveCommand(serveArgs);
  }
}
