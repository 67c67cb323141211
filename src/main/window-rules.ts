/*
 * The desktop window's rules that need no Electron to state: who may call in, which permissions
 * the page gets, which content policy it runs under, and what a renderer crash says. The shell
 * (index.ts) applies them; index.test.ts drives them through it.
 */

/** What of Electron's WebFrameMain the identity check reads. */
interface Frame {
  readonly processId: number;
  readonly frameToken: string;
}

/**
 * Whether an IPC message or a permission request comes from our window's own page: sent by the
 * very webContents of our window (identity, not URL text: an install folder with `[`, `%` or a
 * space, or a lowercase drive letter, is written differently by Node and Chromium), and from its
 * main frame, never a frame inside it.
 */
export function isOurMainFrame(sender: unknown, frame: Frame | null | undefined, ours: { mainFrame: Frame } | undefined): boolean {
  if (ours === undefined || sender !== ours || !frame) return false;
  const main = ours.mainFrame;
  return frame === main || (frame.processId === main.processId && frame.frameToken === main.frameToken);
}

/**
 * The permissions the window may have: writing the clipboard (its Copy buttons, the API secret's
 * included), and only from its own main frame. Everything else (camera, location, notifications,
 * reading the clipboard…) is refused.
 */
const WINDOW_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

export const permissionGranted = (permission: string, fromOurMainFrame: boolean): boolean =>
  fromOurMainFrame && WINDOW_PERMISSIONS.has(permission);

/**
 * The content policy the window runs under: the built page's strict one, or, only while
 * electron-vite's dev server serves the page (a checkout's `npm run dev`, never a packaged app),
 * the same relaxed for what the dev server injects: React refresh's inline preamble, inline styles
 * and its hot-reload socket. The page's own <meta> policy is relaxed the same way by the renderer's
 * dev build (vite.renderer.config.ts), since a page gets the intersection of both.
 */
export function windowPolicy(strict: string, devServerUrl: string | undefined): string {
  return devServerUrl ? relaxForDevServer(strict) : strict;
}

export function relaxForDevServer(policy: string): string {
  return policy
    .replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
    .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
    .replace("connect-src 'self'", "connect-src 'self' ws:");
}

/** A renderer crash as the window's dialog says it: what happened, and where the log is. */
export function goneMessage(details: { reason: string; exitCode: number }, logPlace: string): { message: string; detail: string } {
  const what: Record<string, string> = {
    crashed: 'crashed',
    oom: 'ran out of memory',
    killed: 'was ended by the system',
    'abnormal-exit': 'stopped with an error',
    'launch-failed': 'could not be started',
    'integrity-failure': 'failed its code integrity check',
    'memory-eviction': 'was closed to free memory',
  };
  return {
    message: `The window ${what[details.reason] ?? `stopped (${details.reason})`}.`,
    detail:
      `The service keeps running and the data is safe; reloading the window brings the screens back. ` +
      `Details (reason ${details.reason}, exit code ${details.exitCode}) are in ${logPlace}.`,
  };
}
