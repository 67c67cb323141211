import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The product's name as Electron sees it (package.json productName): its userData folder bears it. */
const PRODUCT_NAME = 'NPS Reconcile';

/**
 * The folder the desktop app keeps its data in (Electron's userData), so the CLI and the window
 * share one store by default: NPS_DATA_DIR wins, then the platform's application-data folder.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.NPS_DATA_DIR) return env.NPS_DATA_DIR;
  const home = homedir();
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), PRODUCT_NAME);
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', PRODUCT_NAME);
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), PRODUCT_NAME);
}

/** resources/ of this checkout or package: NPS_RESOURCES_DIR, else the nearest one above this file. */
export function defaultResourcesDir(): string {
  if (process.env.NPS_RESOURCES_DIR) return process.env.NPS_RESOURCES_DIR;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'resources');
    if (existsSync(join(candidate, 'catalogue.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('resources/catalogue.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}
