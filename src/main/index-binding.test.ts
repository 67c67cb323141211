import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { REFUSED_EXIT_CODE } from './launch';
import { DB_FILE } from './service/index';
import { logLines, stampedBinding, stand } from './shell.test-support';

vi.mock('electron', async () => (await import('./shell.test-support')).electronModule);

const dataDir = mkdtempSync(join(tmpdir(), 'nps-shell-binding-'));
const bindingDir = mkdtempSync(join(tmpdir(), 'nps-stale-binding-'));
let binding = '';

beforeAll(async () => {
  process.env.NPS_DATA_DIR = dataDir;
  process.env.NPS_PORT = '0';
  // Built before an Electron bump: the stamp names the Electron it was made for.
  binding = stampedBinding(bindingDir, { electron: '44.0.0' });
  await import('./index');
  await vi.waitFor(() => expect(stand.exitCodes).toHaveLength(1), { timeout: 50_000 });
}, 60_000);

afterAll(() => {
  delete process.env.NPS_DATA_DIR;
  delete process.env.NPS_PORT;
  delete process.env.NPS_SQLITE_BINDING;
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(bindingDir, { recursive: true, force: true });
});

it('checks better-sqlite3 against its stamp before opening the store, and says in one line what to run', async () => {
  const electron = process.versions.electron!;
  const sqlite = (JSON.parse(readFileSync(join(bindingDir, 'stamp.json'), 'utf8')) as { better_sqlite3: string }).better_sqlite3;
  const target = `${process.platform}-${process.arch}`;
  const line =
    `better-sqlite3 cannot be loaded: ${binding} was built for Electron 44.0.0, better-sqlite3 ${sqlite}, ${target}; ` +
    `this needs Electron ${electron}, better-sqlite3 ${sqlite}, ${target}; run npm run electron:rebuild (npm start runs it itself)`;
  expect(stand.errorBoxes).toEqual([{ title: 'NPS Reconcile cannot start', text: line }]);
  expect(stand.exitCodes).toEqual([REFUSED_EXIT_CODE]);
  await vi.waitFor(() => expect(logLines(dataDir).find((l) => l.event === 'refused')).toMatchObject({ msg: line }), { timeout: 10_000 });
  // Nothing was opened: no store, no window, no API.
  expect(existsSync(join(dataDir, DB_FILE))).toBe(false);
  expect(stand.windows).toHaveLength(0);
  expect(existsSync(join(dataDir, 'api.json'))).toBe(false);
});
