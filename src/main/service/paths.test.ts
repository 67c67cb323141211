import { describe, expect, it } from 'vitest';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { defaultDataDir } from './paths';

describe('defaultDataDir', () => {
  it('is the folder Electron uses as userData for this product, per platform', () => {
    expect(defaultDataDir({}, 'linux')).toBe(join(homedir(), '.config', 'NPS Reconcile'));
    expect(defaultDataDir({ XDG_CONFIG_HOME: '/x' }, 'linux')).toBe(join('/x', 'NPS Reconcile'));
    expect(defaultDataDir({}, 'darwin')).toBe(join(homedir(), 'Library', 'Application Support', 'NPS Reconcile'));
    expect(defaultDataDir({ APPDATA: 'C:\\Users\\a\\AppData\\Roaming' }, 'win32')).toBe(
      join('C:\\Users\\a\\AppData\\Roaming', 'NPS Reconcile'),
    );
  });
  it('NPS_DATA_DIR wins', () => {
    expect(defaultDataDir({ NPS_DATA_DIR: '/data/nps' }, 'linux')).toBe('/data/nps');
  });
});
