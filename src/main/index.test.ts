import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

/*
 * The Electron shell cannot be launched here (no Electron binary), so its wiring is checked
 * against a stand-in for the `electron` module: the real service, the real handlers, the real
 * security settings; only the window system is simulated.
 */

type Handler = (event: unknown, ...args: unknown[]) => unknown;
const ipc = new Map<string, Handler>();
const appListeners = new Map<string, (...args: unknown[]) => void>();
const windows: { opts: { webPreferences: Record<string, unknown> }; file?: string }[] = [];
let headersHook:
  | ((details: { responseHeaders: Record<string, string[]> }, cb: (r: { responseHeaders: Record<string, string[]> }) => void) => void)
  | undefined;
let permissionHook: ((wc: unknown, permission: string, cb: (ok: boolean) => void) => void) | undefined;
const openExternal = vi.fn(async (_url: string) => undefined);
const paths = new Map<string, string>([['userData', '/nonexistent/default-user-data']]);

vi.mock('electron', () => ({
  app: {
    isPackaged: false,
    requestSingleInstanceLock: () => true,
    on: (name: string, fn: (...args: unknown[]) => void) => appListeners.set(name, fn),
    whenReady: () => Promise.resolve(),
    getPath: (name: string) => paths.get(name),
    setPath: (name: string, value: string) => paths.set(name, value),
    getVersion: () => '9.8.7',
    quit: () => undefined,
  },
  BrowserWindow: class {
    opts: { webPreferences: Record<string, unknown> };
    file?: string;
    constructor(opts: { webPreferences: Record<string, unknown> }) {
      this.opts = opts;
      windows.push(this);
    }
    once() {}
    show() {}
    loadFile(file: string) {
      this.file = file;
      return Promise.resolve();
    }
    loadURL() {
      return Promise.resolve();
    }
  },
  ipcMain: { handle: (channel: string, fn: Handler) => ipc.set(channel, fn) },
  session: {
    defaultSession: {
      webRequest: { onHeadersReceived: (fn: typeof headersHook) => (headersHook = fn) },
      setPermissionRequestHandler: (fn: typeof permissionHook) => (permissionHook = fn),
    },
  },
  shell: { openExternal },
  dialog: { showErrorBox: () => undefined },
  nativeTheme: { shouldUseDarkColors: false },
}));

const dataDir = mkdtempSync(join(tmpdir(), 'nps-shell-'));
const ourPage = pathToFileURL(resolve('src/renderer/index.html')).href;
const fromUs = (send = vi.fn()) => ({ senderFrame: { url: ourPage }, sender: { send, isDestroyed: () => false } });
const fromElsewhere = { senderFrame: { url: 'https://evil.example/' }, sender: { send: vi.fn(), isDestroyed: () => false } };

beforeAll(async () => {
  process.env.NPS_DATA_DIR = dataDir;
  process.env.NPS_PORT = '0';
  await import('./index');
  await vi.waitFor(() => expect(windows).toHaveLength(1), { timeout: 10_000 });
});

afterAll(async () => {
  let quit: () => void = () => undefined;
  const done = new Promise<void>((r) => (quit = r));
  const { app } = await import('electron');
  (app as unknown as { quit: () => void }).quit = quit;
  appListeners.get('will-quit')?.({ preventDefault: () => undefined });
  await done;
  delete process.env.NPS_DATA_DIR;
  delete process.env.NPS_PORT;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the window', () => {
  it('is isolated: context isolation, sandbox, no Node, the preload only', () => {
    const prefs = windows[0]!.opts.webPreferences;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(String(prefs.preload)).toMatch(/preload[/\\]index\.cjs$/);
    expect(windows[0]!.file).toBe(resolve('src/renderer/index.html'));
  });

  it('gets the strict policy as a header, and no permission', () => {
    let out: Record<string, string[]> = {};
    headersHook!({ responseHeaders: { 'x-other': ['1'] } }, (r) => (out = r.responseHeaders));
    expect(out['Content-Security-Policy']?.[0]).toContain("script-src 'self'");
    expect(out['Content-Security-Policy']?.[0]).not.toContain('unsafe');
    expect(out['x-other']).toEqual(['1']);
    const answers: boolean[] = [];
    permissionHook!({}, 'geolocation', (ok) => answers.push(ok));
    expect(answers).toEqual([false]);
  });

  it('may not navigate, open windows or attach webviews', () => {
    const events = new Map<string, (e: { preventDefault: () => void }) => void>();
    let openHandler: (() => { action: string }) | undefined;
    const contents = {
      on: (name: string, fn: (e: { preventDefault: () => void }) => void) => events.set(name, fn),
      setWindowOpenHandler: (fn: () => { action: string }) => (openHandler = fn),
    };
    appListeners.get('web-contents-created')!({}, contents);
    for (const name of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      const preventDefault = vi.fn();
      events.get(name)!({ preventDefault });
      expect(preventDefault, name).toHaveBeenCalled();
    }
    expect(openHandler!()).toEqual({ action: 'deny' });
  });
});

describe('the IPC bridge', () => {
  it('calls the handler map, validating the arguments with the contract', async () => {
    const call = ipc.get('nps:call')!;
    const ok = (await call(fromUs(), 'catalogue-chains-list', { chain_id: 'TRON' }, null)) as { status: number; data: { total: number } };
    expect(ok.status).toBe(0);
    expect(ok.data.total).toBe(1);
    const bad = (await call(fromUs(), 'catalogue-chains-list', { page_size: 1000 }, null)) as { status: number; msg: string };
    expect(bad).toMatchObject({ status: 1002, msg: expect.stringMatching(/^page_size/) });
    expect(await call(fromUs(), 'no-such-handler', {}, null)).toMatchObject({ status: 1005 });
  });

  it('answers only the app’s own page', async () => {
    expect(await ipc.get('nps:call')!(fromElsewhere, 'app-info', {}, null)).toMatchObject({ status: 2001, data: null });
    expect(await ipc.get('nps:open-explorer')!(fromElsewhere, { chain_id: 'ETH', kind: 'tx', value: '0xabc' })).toMatchObject({
      status: 2001,
    });
    expect(openExternal).not.toHaveBeenCalled();
  });

  it('reports the desktop mode and the API server it started', async () => {
    const info = (await ipc.get('nps:call')!(fromUs(), 'app-info', {}, null)) as {
      data: { mode: string; version: string; data_dir: string; api: { state: string; port: number } };
    };
    expect(info.data).toMatchObject({ mode: 'electron', version: '9.8.7', data_dir: dataDir, api: { state: 'running' } });
    const res = await fetch(`http://127.0.0.1:${info.data.api.port}/nps/chains?chain_id=ETH`);
    expect(((await res.json()) as { data: { total: number } }).data.total).toBe(1);
  });

  it('opens explorer links built from the catalogue, https only, never a URL from the page', async () => {
    const open = ipc.get('nps:open-explorer')!;
    const r = (await open(fromUs(), { chain_id: 'TRON', kind: 'tx', value: 'abc123' })) as { status: number };
    expect(r.status).toBe(0);
    expect(openExternal).toHaveBeenLastCalledWith('https://tronscan.org/#/transaction/abc123');
    openExternal.mockClear();
    expect(await open(fromUs(), { chain_id: 'ETH', kind: 'tx', value: 'https://evil.example/x' })).toMatchObject({ status: 1002 });
    expect(await open(fromUs(), { chain_id: 'ETH', kind: 'tx', value: 'javascript:alert(1)' })).toMatchObject({ status: 1002 });
    expect(openExternal).not.toHaveBeenCalled();
  });
});
