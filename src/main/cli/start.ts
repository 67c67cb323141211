import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { REFUSED_EXIT_CODE, WINDOW_OPEN_LINE, WINDOW_SIGNAL_ENV } from '../launch';
import { bindingProblem } from '../native-binding';
import { dataDirFrom, dataDirOption, parseFlags } from './common';
import {
  electronSandbox,
  electronSqliteBinding,
  electronSqliteNeeds,
  electronTarget,
  locateElectron,
  requireHere,
} from './electron-locate';
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

/** `npm run electron:rebuild` for one architecture: undefined when it succeeded, else its last line. */
function runRebuild(target: { arch: string }): string | undefined {
  const tsx = join(dirname(requireHere.resolve('tsx/package.json')), 'dist', 'cli.mjs');
  const r = spawnSync(process.execPath, [tsx, 'scripts/electron-rebuild.ts', '--arch', target.arch], {
    cwd: projectRoot,
    stdio: ['ignore', 'inherit', 'pipe'],
    encoding: 'utf8',
  });
  return r.status === 0 ? undefined : reasonFrom(r.stderr ?? '');
}

/**
 * better-sqlite3 for the Electron at `electronPath`: the file NPS_SQLITE_BINDING names, taken as it
 * is, or the checkout's own build (electron-native/<os>-<arch>/), built again whenever it is
 * missing or its stamp names another Electron, better-sqlite3 or architecture (a package bump, or
 * an Apple Silicon Electron where the last build was for Rosetta's x64).
 */
export function ensureElectronSqlite(
  electronPath: string,
  {
    binding,
    rebuild = runRebuild,
  }: { binding?: string; rebuild?: (target: { platform: string; arch: string }) => string | undefined } = {},
): { path: string } | { reason: string } {
  const target = electronTarget(electronPath);
  const needed = electronSqliteNeeds(target);
  const named = process.env.NPS_SQLITE_BINDING;
  if (named && !binding) {
    const problem = bindingProblem(named, needed);
    return problem ? { reason: `NPS_SQLITE_BINDING: ${problem}` } : { path: named };
  }
  const file = binding ?? electronSqliteBinding(target);
  const before = bindingProblem(file, needed);
  if (!before) return { path: file };
  process.stderr.write(`better-sqlite3 must be built for this Electron: ${before}; building it (npm run electron:rebuild)...\n`);
  const failure = rebuild(target);
  const after = bindingProblem(file, needed);
  if (!after) return { path: file };
  return { reason: `better-sqlite3 could not be built for Electron (${failure ?? after})` };
}

const SANDBOX_FAILURE =
  /setuid_sandbox_host|SUID sandbox helper binary|No usable sandbox|Failed to move to new namespace|zygote_host_impl_linux.*sandbox|sandbox_linux/i;
const NO_DISPLAY =
  /Missing X server or \$DISPLAY|cannot open display|Unable to open X display|Failed to connect to Wayland display|Failed to connect to the display/i;

/**
 * Why Electron ended before its window appeared, in one clause, from what it printed and how it
 * ended: its sandbox refused (Ubuntu 23.10+ AppArmor), no display, a missing library, else its
 * last line.
 */
export function whyElectronStopped(
  output: string,
  exit: { code: number | null; signal: string | null },
  sandbox: { ok: true } | { ok: false; reason: string },
): string {
  if (SANDBOX_FAILURE.test(output))
    return sandbox.ok
      ? 'its sandbox could not start (see docs/desktop.md, "Ubuntu 23.10 and later")'
      : `its sandbox was refused: ${sandbox.reason}`;
  if (NO_DISPLAY.test(output)) return 'there is no display to open its window on (DISPLAY or WAYLAND_DISPLAY)';
  const library = /error while loading shared libraries: ([^:\s]+)/.exec(output);
  if (library) return `a library it needs is missing (${library[1]}; docs/desktop.md lists what Electron needs on Linux)`;
  const last = reasonFrom(output);
  const how = exit.signal ? `it was ended by ${exit.signal}` : `it exited with code ${exit.code}`;
  return last === 'no output' ? how : `${how}: ${last}`;
}

interface ElectronRun {
  /** The window appeared (or the copy already running brought its own forward). */
  opened: boolean;
  code: number | null;
  signal: string | null;
  /** The end of what Electron printed, for the reason when it did not open. */
  output: string;
}

const KEPT_OUTPUT = 64 * 1024;

/** Run Electron on the checkout's build, passing its output through, until it ends. */
function runElectron(electron: string, binding: string, opts: { port?: string; dataDir?: string }): Promise<ElectronRun> {
  // The app runs the build in out/, which `npm start` brought up to date before this ran (scripts/nps.mjs).
  const env: NodeJS.ProcessEnv = { ...process.env, NPS_SQLITE_BINDING: binding, [WINDOW_SIGNAL_ENV]: '1' };
  if (opts.port !== undefined) env.NPS_PORT = opts.port;
  if (opts.dataDir !== undefined) env.NPS_DATA_DIR = opts.dataDir;
  const child = spawn(electron, ['.'], { cwd: projectRoot, stdio: ['inherit', 'pipe', 'pipe'], env });
  const run: ElectronRun = { opened: false, code: null, signal: null, output: '' };
  let stdoutTail = '';
  const keep = (text: string) => (run.output = (run.output + text).slice(-KEPT_OUTPUT));
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    const text = chunk.toString();
    keep(text);
    stdoutTail = (stdoutTail + text).slice(-2 * WINDOW_OPEN_LINE.length);
    if (stdoutTail.includes(WINDOW_OPEN_LINE)) run.opened = true;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    keep(chunk.toString());
  });
  // Ctrl-C reaches Electron too (one process group); a TERM sent to this process alone is passed on.
  const pass = (signal: NodeJS.Signals) => () => child.kill(signal);
  const onInt = pass('SIGINT');
  const onTerm = pass('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return new Promise<ElectronRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      run.code = code;
      run.signal = signal;
      resolve(run);
    });
  }).finally(() => {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  });
}

export async function startCommand(args: string[]): Promise<void> {
  const { values } = parseFlags(args, { browser: { type: 'boolean' }, port: { type: 'string' }, ...dataDirOption });
  // Absolute before Electron sees it: it runs from the checkout, and app.setPath refuses a relative path.
  const dataDir = values['data-dir'] !== undefined ? dataDirFrom(values['data-dir']) : undefined;
  const serveArgs = [
    '--ui',
    ...(values.port !== undefined ? ['--port', values.port] : []),
    ...(dataDir !== undefined ? ['--data-dir', dataDir] : []),
  ];
  const browserMode = (why: string): Promise<void> => {
    process.stdout.write(`${why}; starting browser mode instead.\n`);
    return serveCommand(serveArgs);
  };
  if (values.browser) return serveCommand(serveArgs);
  const electron = findElectron();
  if ('reason' in electron) return browserMode(`Electron is not available here: ${electron.reason}`);
  const binding = ensureElectronSqlite(electron.path);
  if ('reason' in binding) return browserMode(`Electron is not available here: ${binding.reason}`);
  let run: ElectronRun;
  try {
    run = await runElectron(electron.path, binding.path, { port: values.port, dataDir });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== 'ENOENT' && code !== 'EACCES') throw err;
    return browserMode(`Electron is not available here: the Electron binary would not start (${code})`);
  }
  if (run.opened || run.code === REFUSED_EXIT_CODE) {
    process.exitCode = run.code ?? 1;
    return;
  }
  return browserMode(`Electron ended before its window appeared: ${whyElectronStopped(run.output, run, electronSandbox(electron.path))}`);
}
