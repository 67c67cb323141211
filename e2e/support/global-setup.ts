import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { electronSqliteBinding, locateElectron, requireHere } from '../../src/main/cli/electron-locate';
import { ensureRendererBuilt } from '../../src/main/cli/renderer-build';

const root = resolve(import.meta.dirname, '..', '..');

/** Build what the journeys run: the renderer for browser mode, or the whole app for Electron. */
export default function globalSetup(): void {
  if (process.env.E2E_ELECTRON !== '1') {
    ensureRendererBuilt((line) => process.stdout.write(line + '\n'));
    return;
  }
  // Asked for Electron explicitly: say precisely what is missing rather than quietly testing something else.
  if (!locateElectron().path)
    throw new Error('E2E_ELECTRON=1 but no Electron binary is installed (npx install-electron, with network access)');
  if (!existsSync(electronSqliteBinding()))
    throw new Error('E2E_ELECTRON=1 but better-sqlite3 is not built for Electron: run npm run electron:rebuild');
  const electronVite = join(resolve(requireHere.resolve('electron-vite/package.json'), '..'), 'bin', 'electron-vite.js');
  const r = spawnSync(process.execPath, [electronVite, 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`electron-vite build failed (${r.status ?? r.signal})`);
}
