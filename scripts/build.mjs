// The one build: `electron-vite build` writes out/ (main process with the CLI and the worker
// threads, preload, renderer). The Electron app, the CLI, the tests and the benches all run what it
// wrote. `npm install` runs it (prepare); so does every command that finds a source newer than the
// last build, so an edit is never run stale. Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Written after a build that succeeded; its time is the build's. */
const STAMP = join(root, 'out', '.built');
/** What the build reads. Tests are not built, so editing one does not make the build stale. */
const INPUTS = ['src', 'electron.vite.config.ts', 'vite.renderer.config.ts', 'package.json', 'package-lock.json'];
const NOT_BUILT = /\.test(-support)?\.tsx?$/;
/** One build at a time (the test runner's processes may all look at once); a lock older than this was left by a crash. */
const LOCK = join(root, 'node_modules', '.cache', 'nps-build.lock');
const LOCK_STALE_MS = 5 * 60_000;
const LOCK_WAIT_MS = 5 * 60_000;

function newest(path) {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return NOT_BUILT.test(path) ? 0 : st.mtimeMs;
  let time = 0;
  for (const entry of readdirSync(path)) time = Math.max(time, newest(join(path, entry)));
  return time;
}

/** No build yet, or a source newer than the last one. */
export function isStale() {
  const built = statSync(STAMP, { throwIfNoEntry: false });
  return !built || INPUTS.some((p) => newest(join(root, p)) > built.mtimeMs);
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Take the build lock (true), or see another process's build make it needless (false, unless `force`). */
function takeLock(force) {
  mkdirSync(dirname(LOCK), { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      return true;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    const held = statSync(LOCK, { throwIfNoEntry: false });
    if (held && Date.now() - held.mtimeMs > LOCK_STALE_MS) rmSync(LOCK, { recursive: true, force: true });
    else if (Date.now() > deadline) throw new Error(`another build has held ${LOCK} for too long; remove it if no build is running`);
    else sleep(100);
    // Someone else built meanwhile: nothing left to do.
    if (!force && !isStale()) return false;
  }
}

/** Build unless out/ is up to date (`force`: build anyway). `log`: where to say that a build runs (stderr by default). */
export function ensureBuilt({ log = (line) => process.stderr.write(line + '\n'), force = false } = {}) {
  if (!force && !isStale()) return;
  if (!takeLock(force)) return;
  try {
    if (!force && !isStale()) return;
    log('building the app (electron-vite build)...');
    const started = Date.now();
    const electronVite = join(
      dirname(createRequire(join(root, 'package.json')).resolve('electron-vite/package.json')),
      'bin',
      'electron-vite.js',
    );
    const r = spawnSync(process.execPath, [electronVite, 'build', '--logLevel', 'warn'], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`the build failed (electron-vite exited with ${r.status ?? r.signal}); see the output above`);
    if (!existsSync(join(root, 'out', 'main', 'cli.js'))) throw new Error('the build wrote no out/main/cli.js');
    // Dated when the build began: a source saved while it ran is newer, and the next command builds again.
    writeFileSync(STAMP, new Date(started).toISOString() + '\n');
    utimesSync(STAMP, started / 1000, started / 1000);
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    ensureBuilt({ log: (line) => process.stdout.write(line + '\n'), force: process.argv.includes('--force') });
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
