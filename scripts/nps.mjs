#!/usr/bin/env node
// `npm run nps` and `npm start`: the compiled CLI (out/main/cli.js), built first if a source is newer.
import { ensureBuilt } from './build.mjs';
import { launchFlags } from './launch-flags.mjs';

/*
 * `serve` and `import` run with a larger young generation (launch-flags.mjs). The size can only be
 * given as Node starts, so the launcher starts itself again with it, in place: process.execve keeps
 * the process, its id, its signals and its streams, so whoever started `serve` still holds the
 * service. Where Node has no execve (Windows), or the size is given already, the command runs as
 * it was started.
 */
const flags = launchFlags(process.argv.slice(2));
const given = (flag) =>
  [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => a.startsWith(flag.split('=')[0]));
if (flags.length > 0 && typeof process.execve === 'function' && !flags.some(given)) {
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...flags, ...process.argv.slice(1)], process.env);
}

try {
  ensureBuilt();
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
await import('../out/main/cli.js');
