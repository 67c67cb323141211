import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ipcEvent, quitApp, shellWindow, stampedBinding, stand } from './shell.test-support';

vi.mock('electron', async () => (await import('./shell.test-support')).electronModule);

/* `npm run dev`: electron-vite serves the page and names its URL in ELECTRON_RENDERER_URL. */

const dataDir = mkdtempSync(join(tmpdir(), 'nps-shell-dev-'));
const bindingDir = mkdtempSync(join(tmpdir(), 'nps-shell-dev-binding-'));
const devServer = 'http://localhost:5173/';

beforeAll(async () => {
  process.env.NPS_DATA_DIR = dataDir;
  process.env.NPS_PORT = '0';
  process.env.ELECTRON_RENDERER_URL = devServer;
  stampedBinding(bindingDir);
  await import('./index');
  await vi.waitFor(() => expect(stand.windows).toHaveLength(1), { timeout: 50_000 });
}, 60_000);

afterAll(async () => {
  await quitApp();
  for (const name of ['NPS_DATA_DIR', 'NPS_PORT', 'ELECTRON_RENDERER_URL', 'NPS_SQLITE_BINDING']) delete process.env[name];
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(bindingDir, { recursive: true, force: true });
});

it('loads the dev server’s page under the policy relaxed for what the dev server injects, and only that', () => {
  expect(shellWindow().url).toBe(devServer);
  let policy = '';
  stand.headersHook!({ responseHeaders: {} }, (r) => (policy = r.responseHeaders['Content-Security-Policy']![0]!));
  // React refresh's inline preamble, inline styles, the hot-reload socket.
  expect(policy).toContain("script-src 'self' 'unsafe-inline'");
  expect(policy).toContain("style-src 'self' 'unsafe-inline'");
  expect(policy).toContain("connect-src 'self' ws:");
  expect(policy).not.toContain('unsafe-eval');
  expect(policy).toContain("object-src 'none'");
});

it('answers the dev server’s page in our window', async () => {
  shellWindow().webContents.mainFrame.url = devServer;
  expect(await stand.ipc.get('nps:call')!(ipcEvent(shellWindow().webContents), 'app-info', {}, null)).toMatchObject({ status: 0 });
});
