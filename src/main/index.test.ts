import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ipcEvent, logLines, newFrame, quitApp, shellWindow, stampedBinding, stand, StandInContents } from './shell.test-support';

vi.mock('electron', async () => (await import('./shell.test-support')).electronModule);

/*
 * The Electron shell cannot be launched here (no Electron binary), so its wiring is checked
 * against a stand-in for the `electron` module (shell.test-support.ts): the real service, the real
 * handlers, the real security settings and the real log; only the window system is simulated.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'nps-shell-'));
const bindingDir = mkdtempSync(join(tmpdir(), 'nps-shell-binding-'));
const ourPage = () => shellWindow().webContents;
const call = (event: unknown, name: string, input: unknown) => stand.ipc.get('nps:call')!(event, name, input, null);
/** The listeners the shell added to the process. */
let onUncaught: NodeJS.UncaughtExceptionListener[] = [];
let onRejection: NodeJS.UnhandledRejectionListener[] = [];

beforeAll(async () => {
  process.env.NPS_DATA_DIR = dataDir;
  process.env.NPS_PORT = '0';
  stampedBinding(bindingDir);
  const uncaughtBefore = process.listeners('uncaughtException');
  const rejectionBefore = process.listeners('unhandledRejection');
  await import('./index');
  await vi.waitFor(() => expect(stand.windows).toHaveLength(1), { timeout: 50_000 });
  // The page loaded: Electron says the window is ready to show.
  shellWindow().emit('ready-to-show');
  onUncaught = process.listeners('uncaughtException').filter((l) => !uncaughtBefore.includes(l));
  onRejection = process.listeners('unhandledRejection').filter((l) => !rejectionBefore.includes(l));
}, 60_000);

afterAll(() => {
  delete process.env.NPS_DATA_DIR;
  delete process.env.NPS_PORT;
  delete process.env.NPS_SQLITE_BINDING;
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(bindingDir, { recursive: true, force: true });
});

describe('the window', () => {
  it('is isolated: context isolation, sandbox, no Node, the preload only', () => {
    const prefs = shellWindow().opts.webPreferences;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(String(prefs.preload)).toMatch(/preload[/\\]index\.cjs$/);
    expect(shellWindow().file).toBe(resolve('src/renderer/index.html'));
    expect(shellWindow().shown).toBe(true);
  });

  it('gets the strict policy as a header without a dev server', () => {
    let out: Record<string, string[]> = {};
    stand.headersHook!({ responseHeaders: { 'x-other': ['1'] } }, (r) => (out = r.responseHeaders));
    expect(out['Content-Security-Policy']?.[0]).toContain("script-src 'self'");
    expect(out['Content-Security-Policy']?.[0]).not.toContain('unsafe');
    expect(out['x-other']).toEqual(['1']);
  });

  it('may write the clipboard from its own page, and nothing else from anywhere', () => {
    const elsewhere = new StandInContents();
    const asked = (contents: unknown, permission: string, isMainFrame = true) => {
      const answers: boolean[] = [];
      stand.permissionRequest!(contents, permission, (ok) => answers.push(ok), { isMainFrame });
      const checked = stand.permissionCheck!(contents, permission, 'file://', { isMainFrame });
      // The check and the request always agree: Chromium asks one, then the other.
      expect(answers).toEqual([checked]);
      return checked;
    };
    expect(asked(ourPage(), 'clipboard-sanitized-write')).toBe(true);
    expect(asked(ourPage(), 'clipboard-sanitized-write', false)).toBe(false);
    expect(asked(elsewhere, 'clipboard-sanitized-write')).toBe(false);
    expect(asked(null, 'clipboard-sanitized-write')).toBe(false);
    for (const permission of ['clipboard-read', 'geolocation', 'media', 'notifications', 'openExternal', 'fullscreen']) {
      expect(asked(ourPage(), permission), permission).toBe(false);
    }
  });

  it('may not navigate, open windows or attach webviews', () => {
    const contents = new StandInContents();
    stand.app.emit('web-contents-created', {}, contents);
    for (const name of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      const preventDefault = vi.fn();
      contents.emit(name, { preventDefault });
      expect(preventDefault, name).toHaveBeenCalled();
    }
    expect(contents.openHandler!()).toEqual({ action: 'deny' });
  });
});

describe('the IPC bridge', () => {
  it('calls the handler map, validating the arguments with the contract', async () => {
    const ok = (await call(ipcEvent(ourPage()), 'catalogue-chains-list', { chain_id: 'TRON' })) as {
      status: number;
      data: { total: number };
    };
    expect(ok.status).toBe(0);
    expect(ok.data.total).toBe(1);
    const bad = (await call(ipcEvent(ourPage()), 'catalogue-chains-list', { page_size: 1000 })) as { status: number; msg: string };
    expect(bad).toMatchObject({ status: 1002, msg: expect.stringMatching(/^page_size/) });
    expect(await call(ipcEvent(ourPage()), 'no-such-handler', {})).toMatchObject({ status: 1005 });
  });

  it('answers our window’s page by identity, whatever its URL text', async () => {
    // How Chromium may write the page of an install folder that Node writes otherwise.
    for (const url of [
      'file:///C:/Program%20Files%20[x86]/100%/NPS/resources/app.asar/out/renderer/index.html',
      'file:///c:/x/index.html',
    ]) {
      ourPage().mainFrame.url = url;
      expect(await call(ipcEvent(ourPage()), 'app-info', {}), url).toMatchObject({ status: 0 });
    }
  });

  it('refuses any other sender: another webContents, a frame inside our page, no frame', async () => {
    const other = new StandInContents();
    other.mainFrame.url = ourPage().mainFrame.url;
    const inside = newFrame(ourPage().mainFrame.processId, ourPage().mainFrame.url);
    const senders = {
      'another webContents': ipcEvent(other),
      'a frame inside': ipcEvent(ourPage(), inside),
      'no frame': ipcEvent(ourPage(), null),
    };
    for (const [what, event] of Object.entries(senders)) {
      expect(await call(event, 'app-info', {}), what).toMatchObject({ status: 2001, data: null });
      expect(await stand.ipc.get('nps:open-explorer')!(event, { chain_id: 'ETH', kind: 'tx', value: '0xabc' }), what).toMatchObject({
        status: 2001,
      });
    }
    expect(stand.openExternal).not.toHaveBeenCalled();
  });

  it('reports the desktop mode and the API server it started, which api.json names', async () => {
    const info = (await call(ipcEvent(ourPage()), 'app-info', {})) as {
      data: { mode: string; version: string; data_dir: string; api: { state: string; port: number } };
    };
    expect(info.data).toMatchObject({ mode: 'electron', version: '9.8.7', data_dir: dataDir, api: { state: 'running' } });
    const res = await fetch(`http://127.0.0.1:${info.data.api.port}/nps/chains?chain_id=ETH`);
    expect(((await res.json()) as { data: { total: number } }).data.total).toBe(1);
    const discovery = JSON.parse(readFileSync(join(dataDir, 'api.json'), 'utf8')) as { port: number };
    expect(discovery.port).toBe(info.data.api.port);
  });

  it('opens explorer links built from the catalogue, https only, never a URL from the page', async () => {
    const open = stand.ipc.get('nps:open-explorer')!;
    const r = (await open(ipcEvent(ourPage()), { chain_id: 'TRON', kind: 'tx', value: 'abc123' })) as { status: number };
    expect(r.status).toBe(0);
    expect(stand.openExternal).toHaveBeenLastCalledWith('https://tronscan.org/#/transaction/abc123');
    stand.openExternal.mockClear();
    expect(await open(ipcEvent(ourPage()), { chain_id: 'ETH', kind: 'tx', value: 'https://evil.example/x' })).toMatchObject({
      status: 1002,
    });
    expect(await open(ipcEvent(ourPage()), { chain_id: 'ETH', kind: 'tx', value: 'javascript:alert(1)' })).toMatchObject({ status: 1002 });
    expect(stand.openExternal).not.toHaveBeenCalled();
  });
});

describe('the log', () => {
  const logged = (event: string) => logLines(dataDir).filter((l) => l.event === event);

  it('gets the window’s errors and warnings, its preload’s failure and a page that did not load', async () => {
    ourPage().emit('console-message', {
      level: 'error',
      message: 'Uncaught TypeError: x is undefined',
      sourceId: 'file:///app/index.js',
      lineNumber: 12,
    });
    ourPage().emit('console-message', { level: 'warning', message: 'slow', sourceId: 'file:///app/index.js', lineNumber: 3 });
    ourPage().emit('console-message', { level: 'info', message: 'chatter', sourceId: 'file:///app/index.js', lineNumber: 4 });
    ourPage().emit('preload-error', {}, '/app/preload/index.cjs', new Error('preload exploded'));
    ourPage().emit('did-fail-load', {}, -6, 'ERR_FILE_NOT_FOUND', 'file:///app/index.html', true);
    await vi.waitFor(() => expect(logged('did-fail-load')).toHaveLength(1), { timeout: 10_000 });
    expect(logged('window-console')).toEqual([
      expect.objectContaining({ level: 'error', message: 'Uncaught TypeError: x is undefined', source: 'file:///app/index.js', line: 12 }),
      expect.objectContaining({ level: 'warning', message: 'slow' }),
    ]);
    expect(logged('preload-error')).toEqual([expect.objectContaining({ error: 'preload exploded', path: '/app/preload/index.cjs' })]);
    expect(logged('did-fail-load')[0]).toMatchObject({ code: -6, msg: "the window's page did not load: ERR_FILE_NOT_FOUND (-6)" });
  });

  it('gets the main process’s uncaught exceptions and rejections, and the dialog names the log’s folder', async () => {
    expect(onUncaught).toHaveLength(1);
    expect(onRejection).toHaveLength(1);
    onUncaught[0]!(new Error('main went wrong'), 'uncaughtException');
    onRejection[0]!(new Error('a promise nobody awaited'), Promise.resolve());
    await vi.waitFor(() => expect(logged('unhandled-rejection')).toHaveLength(1), { timeout: 10_000 });
    expect(logged('uncaught-exception')[0]).toMatchObject({ error: 'main went wrong', stack: expect.stringContaining('main went wrong') });
    expect(logged('unhandled-rejection')[0]).toMatchObject({ error: 'a promise nobody awaited' });
    expect(stand.errorBoxes.at(-1)!.text).toBe(`main went wrong\n\nThe details are in the log in ${join(dataDir, 'logs')}.`);
  });

  it('gets a renderer crash, and the window offers to reload, naming the log’s folder', async () => {
    stand.messageAnswer = 0;
    ourPage().emit('render-process-gone', {}, { reason: 'crashed', exitCode: 139 });
    await vi.waitFor(() => expect(ourPage().reloads).toBe(1), { timeout: 10_000 });
    expect(logged('render-process-gone')).toEqual([expect.objectContaining({ reason: 'crashed', exit_code: 139 })]);
    const box = stand.messageBoxes.at(-1)!;
    expect(box.window).toBe(shellWindow());
    expect(box.options.message).toBe('The window crashed.');
    expect(box.options.detail).toContain(`are in the log in ${join(dataDir, 'logs')}.`);
    expect(box.options.buttons).toEqual(['Reload the window', 'Quit']);
  });
});

describe('a second launch and the quit', () => {
  it('brings the window forward while it runs', () => {
    const before = shellWindow().focused;
    stand.app.emit('second-instance');
    expect(shellWindow().focused).toBe(before + 1);
  });

  it('quits cleanly: a second launch during the quit touches no destroyed window, and api.json goes', async () => {
    shellWindow().destroy();
    const quitting = quitApp();
    expect(() => stand.app.emit('second-instance')).not.toThrow();
    await quitting;
    expect(existsSync(join(dataDir, 'api.json'))).toBe(false);
    // A renderer gone while quitting is logged, never offered a reload.
    const boxes = stand.messageBoxes.length;
    ourPage().emit('render-process-gone', {}, { reason: 'killed', exitCode: 15 });
    expect(stand.messageBoxes).toHaveLength(boxes);
  });
});
