import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nps } from './nps.test-support';
import { locateElectron } from './electron-locate';

const root = join(import.meta.dirname, '../../..');

function run(args: string[], env: NodeJS.ProcessEnv, until: RegExp): Promise<{ out: string; kill: () => Promise<number | null> }> {
  const child = spawn(process.execPath, ['out/main/cli.js', ...args], { cwd: root, env: { ...process.env, ...env } });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready: ${out}`)), 60_000);
    child.stdout.on('data', () => {
      if (until.test(out)) {
        clearTimeout(timer);
        resolve({ out, kill: () => new Promise((r) => (child.on('exit', r), child.kill('SIGTERM'))) });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

/** The printed link's parts: the page's origin and the one-time code in its fragment. */
function link(url: string): { origin: string; code: string } {
  const u = new URL(url);
  return { origin: u.origin, code: /^#code=([\w-]{43})$/.exec(u.hash)?.[1] ?? '' };
}

/** Trade the code as the page does; the headers of the session (its cookie and token), or undefined when refused. */
async function trade(origin: string, code: string): Promise<Record<string, string> | undefined> {
  const res = await fetch(`${origin}/app/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ code }),
  });
  if (res.status !== 200) return undefined;
  const { data } = (await res.json()) as { data: { token: string } };
  return { cookie: res.headers.get('set-cookie')!.split(';')[0]!, 'x-nps-session': data.token };
}

describe('npm start without an Electron binary', () => {
  it.skipIf(Boolean(locateElectron().path))('says so in one line and serves the screens in browser mode, printing the URL', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'nps-start-'));
    try {
      const app = await run(
        ['start', '--port', '0', '--data-dir', dataDir],
        { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
        /browser mode\): (\S+)/,
      );
      const lines = app.out
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('building the renderer'));
      expect(lines[0]).toBe(
        'Electron is not available here: no Electron binary is installed and ELECTRON_SKIP_BINARY_DOWNLOAD is set; starting browser mode instead.',
      );
      const { origin, code } = link(/browser mode\): (\S+)/.exec(app.out)![1]!);
      expect(code).not.toBe('');
      const html = await (await fetch(origin)).text();
      expect(html).toContain('<div id="root">');
      expect(html).not.toContain(code);
      const rpc = (headers: Record<string, string>) =>
        fetch(`${origin}/app/rpc/app-info`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
      expect((await rpc({})).status).toBe(401);
      const session = await trade(origin, code);
      expect(session).toBeDefined();
      // The link works once: a program that reads it afterwards gets nothing.
      expect(await trade(origin, code)).toBeUndefined();
      const info = (await (await rpc(session!)).json()) as { data: { mode: string; data_dir: string; api: { state: string } } };
      expect(info.data).toMatchObject({ mode: 'browser', data_dir: dataDir, api: { state: 'running' } });
      expect(await app.kill()).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('serve --ui', () => {
  it('gives every run its own one-time code', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'nps-serve-ui-'));
    try {
      const codes: string[] = [];
      for (let i = 0; i < 2; i++) {
        const app = await run(['serve', '--ui', '--port', '0', '--data-dir', dataDir], {}, /browser mode\): (\S+)/);
        codes.push(link(/browser mode\): (\S+)/.exec(app.out)![1]!).code);
        await app.kill();
      }
      expect(codes[0]).toMatch(/^[\w-]{43}$/);
      expect(codes[0]).not.toBe(codes[1]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('npm run nps -- open gives a fresh link to the running window, which works once; without a window to open it says why', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'nps-open-'));
    try {
      const none = await nps(['open', '--data-dir', dataDir]);
      expect(none.code).toBe(1);
      expect(none.err.trim()).toBe(`no service runs on ${dataDir}: start the app with npm start (it prints the link to open)`);

      const app = await run(['serve', '--ui', '--port', '0', '--data-dir', dataDir], {}, /browser mode\): (\S+)/);
      const first = link(/browser mode\): (\S+)/.exec(app.out)![1]!);
      const opened = await nps(['open', '--data-dir', dataDir]);
      expect(opened.code).toBe(0);
      const fresh = link(/^NPS Reconcile \(browser mode\): (\S+)\n$/.exec(opened.out)![1]!);
      expect(fresh.origin).toBe(first.origin);
      expect(fresh.code).toMatch(/^[\w-]{43}$/);
      expect(fresh.code).not.toBe(first.code);
      expect(await trade(fresh.origin, fresh.code)).toBeDefined();
      expect(await trade(fresh.origin, fresh.code)).toBeUndefined();
      // The link the service printed at its start still works, once.
      expect(await trade(first.origin, first.code)).toBeDefined();
      await app.kill();

      const headless = await run(['serve', '--port', '0', '--data-dir', dataDir], {}, /listening on (\S+)/);
      const refused = await nps(['open', '--data-dir', dataDir]);
      expect(refused.code).toBe(1);
      expect(refused.err.trim()).toMatch(
        new RegExp(
          `^the service on ${dataDir} \\(process \\d+\\) serves no screens: it was started without --ui; stop it, then start the app with npm start$`,
        ),
      );
      await headless.kill();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses to serve the screens beyond this machine', async () => {
    const child = spawn(process.execPath, ['out/main/cli.js', 'serve', '--ui', '--host', '0.0.0.0'], { cwd: root });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    expect(await new Promise((r) => child.on('exit', r))).toBe(1);
    expect(err.trim()).toBe('--host: the screens (--ui) are served on loopback only (127.0.0.1, localhost, ::1), not 0.0.0.0');
  });
});
