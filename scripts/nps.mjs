#!/usr/bin/env node
// `npm run nps` and `npm start`: the compiled CLI (out/main/cli.js), built first if a source is newer.
import { ensureBuilt } from './build.mjs';

/*
 * `serve` answers for as long as it runs, and a verification of 1,000 claims leaves tens of MB of
 * short-lived objects: with V8's default young generation (16 MB semi-spaces) the collector ran
 * several times a request (bench:verify: a fifth less CPU a request with 64 MB). The size can only be given as
 * Node starts (v8.setFlagsFromString afterwards leaves the heap as it is), so the launcher starts
 * itself again with it, in place: process.execve keeps the process, its id, its signals and its
 * streams, so whoever started `serve` still holds the service. Where Node has no execve
 * (Windows), or the size is given already, the service runs as it was started.
 */
const SERVE_FLAGS = ['--max-semi-space-size=64'];
const given = (flag) =>
  [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => a.startsWith(flag.split('=')[0]));
if (process.argv[2] === 'serve' && typeof process.execve === 'function' && !SERVE_FLAGS.some(given)) {
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...SERVE_FLAGS, ...process.argv.slice(1)], process.env);
}

try {
  ensureBuilt();
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
await import('../out/main/cli.js');
