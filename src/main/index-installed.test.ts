import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WINDOW_OPEN_LINE } from './launch';
import { holdReady, ipcEvent, logLines, quitApp, shellWindow, stampedBinding, stand } from './shell.test-support';

vi.mock('electron', async () => (await import('./shell.test-support')).electronModule);

/*
 * The shell as a user's machine starts it: the build installed in a folder whose name Node and
 * Chromium write differently in a file URL (brackets, a percent sign, spaces), started from a
 * terminal with a relative data folder while another program holds the API's port, and launched a
 * second time before its window is up.
 */

const root = join(import.meta.dirname, '../..');
const base = realpathSync(mkdtempSync(join(tmpdir(), 'nps-installed-')));
const install = join(base, 'Program Files [x86]', '100% sure', 'NPS Reconcile');
const started = join(base, 'started here');
const dataDir = join(started, 'books 2026');
let taken: Server;
let takenPort = 0;
let release: () => void;
const printed: string[] = [];
const cwd = process.cwd();

beforeAll(async () => {
  mkdirSync(install, { recursive: true });
  // What a package holds: the build, package.json, the resources; its dependencies beside them.
  cpSync(join(root, 'out'), join(install, 'out'), { recursive: true });
  cpSync(join(root, 'package.json'), join(install, 'package.json'));
  cpSync(join(root, 'resources'), join(install, 'resources'), { recursive: true });
  symlinkSync(realpathSync(join(root, 'node_modules')), join(install, 'node_modules'), 'dir');
  stampedBinding(join(base, 'binding'));
  taken = createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  takenPort = (taken.address() as { port: number }).port;
  mkdirSync(started, { recursive: true });
  process.chdir(started);
  process.env.NPS_DATA_DIR = 'books 2026';
  process.env.NPS_PORT = String(takenPort);
  process.env.NPS_WINDOW_SIGNAL = '1';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (printed.push(String(chunk)), true));
  release = holdReady();
  await import(pathToFileURL(join(install, 'out', 'main', 'index.js')).href);
}, 60_000);

afterAll(async () => {
  vi.restoreAllMocks();
  process.chdir(cwd);
  delete process.env.NPS_DATA_DIR;
  delete process.env.NPS_PORT;
  delete process.env.NPS_WINDOW_SIGNAL;
  delete process.env.NPS_SQLITE_BINDING;
  await new Promise((r) => taken.close(r));
  rmSync(base, { recursive: true, force: true });
});

describe('an installed app started from a terminal', () => {
  it('takes a relative data folder as an absolute one (Electron refuses a relative path)', () => {
    expect(stand.paths.get('userData')).toBe(dataDir);
  });

  it('lets a second launch during start-up wait for the window, and focuses it once shown', async () => {
    expect(() => stand.app.emit('second-instance')).not.toThrow();
    release();
    await vi.waitFor(() => expect(stand.windows).toHaveLength(1), { timeout: 50_000 });
    expect(shellWindow().focused).toBe(0);
    shellWindow().emit('ready-to-show');
    expect(shellWindow().shown).toBe(true);
    expect(shellWindow().focused).toBe(1);
    // npm start waits for this line to know the window appeared.
    expect(printed).toContain(`${WINDOW_OPEN_LINE}\n`);
  }, 60_000);

  it('loads its page from the install folder and answers it, whatever Chromium writes for that folder', async () => {
    expect(shellWindow().file).toBe(join(install, 'out', 'renderer', 'index.html'));
    // Node writes the folder as …/Program%20Files%20[x86]/100%25%20sure/…; Chromium leaves the % alone.
    shellWindow().webContents.mainFrame.url = `file://${install.replaceAll(' ', '%20')}/out/renderer/index.html`;
    const info = (await stand.ipc.get('nps:call')!(ipcEvent(shellWindow().webContents), 'app-info', {}, null)) as {
      status: number;
      data: { data_dir: string; api: { state: string; port: number } };
    };
    expect(info.status).toBe(0);
    expect(info.data.data_dir).toBe(dataDir);
  });

  it('serves the API on a free port when its port is taken, and api.json names it', async () => {
    const info = (await stand.ipc.get('nps:call')!(ipcEvent(shellWindow().webContents), 'app-info', {}, null)) as {
      data: { api: { state: string; port: number; base_url: string } };
    };
    expect(info.data.api.state).toBe('running');
    expect(info.data.api.port).not.toBe(takenPort);
    const discovery = JSON.parse(readFileSync(join(dataDir, 'api.json'), 'utf8')) as { base_url: string; port: number };
    expect(discovery).toMatchObject({ base_url: info.data.api.base_url, port: info.data.api.port });
    expect(existsSync(join(dataDir, 'local.token'))).toBe(true);
    const res = await fetch(`${discovery.base_url}/chains?chain_id=ETH`);
    expect(((await res.json()) as { data: { total: number } }).data.total).toBe(1);
    await vi.waitFor(
      () =>
        expect(logLines(dataDir).find((l) => l.event === 'api-port-moved')).toMatchObject({ wanted: takenPort, port: info.data.api.port }),
      { timeout: 10_000 },
    );
  });

  it('quits cleanly', async () => {
    await quitApp();
    expect(existsSync(join(dataDir, 'api.json'))).toBe(false);
  });
});
