#!/usr/bin/env node
// `npm run nps` and `npm start`: the compiled CLI (out/main/cli.js), built first if a source is newer.
import { ensureBuilt } from './build.mjs';

try {
  ensureBuilt();
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
await import('../out/main/cli.js');
