/**
 * `npm run test:packaged`: the release check (docs/desktop.md), e2e/packaged.spec.ts alone. Run as
 * the release check, a machine without Electron fails it rather than skipping it: a check that
 * could not run has not passed.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { requireHere } from '../src/main/cli/electron-locate';

const root = resolve(import.meta.dirname, '..');
const playwright = join(dirname(requireHere.resolve('@playwright/test/package.json')), 'cli.js');
const r = spawnSync(process.execPath, [playwright, 'test', 'e2e/packaged.spec.ts', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NPS_RELEASE_CHECK: '1' },
});
process.exit(r.status ?? 1);
