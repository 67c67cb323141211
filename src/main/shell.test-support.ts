import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join } from 'node:path';
import { vi } from 'vitest';
import { installedVersion, SQLITE_NODE_FILE, writeStamp } from './native-binding';

/*
 * A stand-in for the `electron` module, for the shell's tests (no Electron binary can run here):
 * the real service, the real handlers and the real security settings run; only the window system
 * is simulated, as far as the shell uses it, and as strictly as Electron is where it matters
 * (app.setPath refuses a relative path, a destroyed window throws when touched).
 *
 *   vi.mock('electron', async () => (await import('./shell.test-support')).electronModule);
 */

type Listener = (...args: unknown[]) => unknown;

class Emitter {
  readonly listeners = new Map<string, Listener[]>();
  on(name: string, fn: Listener): this {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), fn]);
    return this;
  }
  once(name: string, fn: Listener): this {
    const once: Listener = (...args) => {
      this.off(name, once);
      return fn(...args);
    };
    return this.on(name, once);
  }
  off(name: string, fn: Listener): this {
    this.listeners.set(
      name,
      (this.listeners.get(name) ?? []).filter((l) => l !== fn),
    );
    return this;
  }
  emit(name: string, ...args: unknown[]): void {
    for (const fn of [...(this.listeners.get(name) ?? [])]) fn(...args);
  }
}

let frames = 0;
/** A stand-in for WebFrameMain: what tells one frame from another. */
export const newFrame = (processId = 7, url = 'file:///') => ({ processId, frameToken: `frame-token-${++frames}`, url });

export class StandInContents extends Emitter {
  mainFrame = newFrame();
  destroyed = false;
  reloads = 0;
  readonly sent: unknown[][] = [];
  openHandler: (() => { action: string }) | undefined;
  send(...args: unknown[]): void {
    this.sent.push(args);
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  reload(): void {
    this.reloads++;
  }
  setWindowOpenHandler(fn: () => { action: string }): void {
    this.openHandler = fn;
  }
}

export class StandInWindow extends Emitter {
  readonly webContents = new StandInContents();
  file?: string;
  url?: string;
  shown = false;
  focused = 0;
  destroyed = false;
  constructor(readonly opts: { webPreferences: Record<string, unknown> }) {
    super();
    stand.windows.push(this);
  }
  private alive(): void {
    // What Electron does with a closed window's object.
    if (this.destroyed) throw new TypeError('Object has been destroyed');
  }
  show(): void {
    this.alive();
    this.shown = true;
  }
  focus(): void {
    this.alive();
    this.focused++;
  }
  isVisible(): boolean {
    this.alive();
    return this.shown;
  }
  isMinimized(): boolean {
    this.alive();
    return false;
  }
  restore(): void {
    this.alive();
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  /** The window closed (Electron destroys it and its webContents). */
  destroy(): void {
    this.destroyed = true;
    this.webContents.destroyed = true;
  }
  loadFile(file: string): Promise<void> {
    this.file = file;
    return Promise.resolve();
  }
  loadURL(url: string): Promise<void> {
    this.url = url;
    return Promise.resolve();
  }
}

type HeadersHook = (
  details: { responseHeaders: Record<string, string[]> },
  cb: (r: { responseHeaders: Record<string, string[]> }) => void,
) => void;
type RequestHook = (contents: unknown, permission: string, cb: (ok: boolean) => void, details: { isMainFrame: boolean }) => void;
type CheckHook = (contents: unknown, permission: string, origin: string, details: { isMainFrame: boolean }) => boolean;

let markReady: () => void = () => undefined;

/** What the shell did with the stand-in, and the handles a test drives it by. */
export const stand = {
  app: new Emitter(),
  windows: [] as StandInWindow[],
  ipc: new Map<string, Listener>(),
  paths: new Map<string, string>([['userData', '/nonexistent/default-user-data']]),
  packaged: false,
  singleInstance: true,
  isReady: false,
  ready: new Promise<void>((r) => (markReady = r)),
  errorBoxes: [] as { title: string; text: string }[],
  messageBoxes: [] as { window: unknown; options: { message: string; detail: string; buttons: string[] } }[],
  /** The button a message box answers with. */
  messageAnswer: 0,
  exitCodes: [] as number[],
  quits: 0,
  onQuit: undefined as (() => void) | undefined,
  headersHook: undefined as HeadersHook | undefined,
  permissionRequest: undefined as RequestHook | undefined,
  permissionCheck: undefined as CheckHook | undefined,
  openExternal: vi.fn(async (_url: string) => undefined),
  /** Electron's whenReady: resolved at once unless a test holds it (holdReady) before the shell loads. */
  autoReady: true,
};

/** Keep the app from becoming ready until `release()` (start-up in progress). */
export function holdReady(): () => void {
  stand.autoReady = false;
  return () => {
    stand.isReady = true;
    markReady();
  };
}

export const electronModule = {
  app: {
    get isPackaged() {
      return stand.packaged;
    },
    requestSingleInstanceLock: () => stand.singleInstance,
    on: (name: string, fn: Listener) => stand.app.on(name, fn),
    whenReady: () => {
      if (stand.autoReady) {
        stand.isReady = true;
        markReady();
      }
      return stand.ready;
    },
    isReady: () => stand.isReady,
    getPath: (name: string) => stand.paths.get(name),
    setPath: (name: string, value: string) => {
      if (!isAbsolute(value)) throw new Error(`Path must be absolute: ${value}`);
      stand.paths.set(name, value);
    },
    getVersion: () => '9.8.7',
    quit: () => {
      stand.quits++;
      stand.onQuit?.();
    },
    exit: (code: number) => {
      stand.exitCodes.push(code);
    },
  },
  BrowserWindow: StandInWindow,
  ipcMain: { handle: (channel: string, fn: Listener) => stand.ipc.set(channel, fn) },
  session: {
    defaultSession: {
      webRequest: { onHeadersReceived: (fn: HeadersHook) => (stand.headersHook = fn) },
      setPermissionRequestHandler: (fn: RequestHook) => (stand.permissionRequest = fn),
      setPermissionCheckHandler: (fn: CheckHook) => (stand.permissionCheck = fn),
    },
  },
  shell: { openExternal: stand.openExternal },
  dialog: {
    showErrorBox: (title: string, text: string) => stand.errorBoxes.push({ title, text }),
    showMessageBox: (window: unknown, options: { message: string; detail: string; buttons: string[] }) => {
      stand.messageBoxes.push({ window, options });
      return Promise.resolve({ response: stand.messageAnswer });
    },
  },
  nativeTheme: { shouldUseDarkColors: false },
};

/** The window the shell opened (the last one). */
export const shellWindow = (): StandInWindow => {
  const w = stand.windows.at(-1);
  if (!w) throw new Error('the shell has opened no window');
  return w;
};

/** An IPC event as Electron gives it: the sending webContents and frame. */
export const ipcEvent = (sender: StandInContents, frame: { processId: number; frameToken: string } | null = sender.mainFrame) => ({
  sender,
  senderFrame: frame,
});

/** Quit as Electron does (before-quit, then will-quit, which the shell may hold), until the shell quits again. */
export async function quitApp(): Promise<void> {
  const done = new Promise<void>((r) => (stand.onQuit = r));
  stand.app.emit('before-quit', { preventDefault: () => undefined });
  stand.app.emit('will-quit', { preventDefault: () => undefined });
  await done;
}

const root = join(import.meta.dirname, '../..');

/**
 * The shell runs under this Node here, so "its Electron" is this Node with Electron's version: a
 * copy of node_modules' better-sqlite3 (built for this Node), stamped for the installed Electron,
 * named by NPS_SQLITE_BINDING as `npm start` names the one it checked.
 */
export function stampedBinding(dir: string, stamp: Partial<{ electron: string; better_sqlite3: string; arch: string }> = {}): string {
  const electron = installedVersion(root, 'electron');
  Object.defineProperty(process.versions, 'electron', { value: electron, configurable: true });
  const file = join(dir, SQLITE_NODE_FILE);
  mkdirSync(dir, { recursive: true });
  const built = join(
    dirname(createRequire(join(root, 'package.json')).resolve('better-sqlite3/package.json')),
    'build',
    'Release',
    SQLITE_NODE_FILE,
  );
  copyFileSync(built, file);
  writeStamp(file, {
    electron,
    better_sqlite3: installedVersion(root, 'better-sqlite3'),
    platform: process.platform,
    arch: process.arch,
    ...stamp,
  });
  process.env.NPS_SQLITE_BINDING = file;
  return file;
}

/** The lines of the data folder's log, parsed. */
export function logLines(dataDir: string): Record<string, unknown>[] {
  const dir = join(dataDir, 'logs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
