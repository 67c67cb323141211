import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REFUSED_EXIT_CODE, WINDOW_OPEN_LINE } from '../launch';
import { neededIn, SQLITE_NODE_FILE, type BindingNeeds } from '../native-binding';
import { electronBuildStandIn, stampedCopy } from '../native-binding.test-support';
import { electronSandbox, locateElectron } from './electron-locate';
import { nps } from './nps.test-support';
import { ensureElectronSqlite, whyElectronStopped } from './start';

const root = join(import.meta.dirname, '../../..');

function run(
  args: string[],
  env: NodeJS.ProcessEnv,
  until: RegExp,
  cwd = root,
): Promise<{ out: string; kill: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [join(root, 'out/main/cli.js'), ...args], { cwd, env: { ...process.env, ...env } });
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

/*
 * Electron itself cannot run here; these stand-ins take its place where `npm start` finds it
 * (ELECTRON_OVERRIDE_DIST_PATH, Electron's own variable for "the Electron in this folder") and act
 * as Electron does on the machines the issue is about.
 */
describe('npm start when Electron ends before its window appears', () => {
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'nps-start-electron-')));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  /** A binding for the installed Electron on this machine, as `npm run electron:rebuild` leaves one (a stand-in: never loaded). */
  const binding = (name: string, stamp: Partial<BindingNeeds> = {}): string =>
    electronBuildStandIn(join(work, name, SQLITE_NODE_FILE), neededIn(root, { platform: process.platform, arch: process.arch }), stamp);

  /** A folder with an `electron` that runs `body` (Node) in place of Electron. */
  function fakeElectron(name: string, body: string): string {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'electron'), `#!${process.execPath}\n${body}\n`);
    chmodSync(join(dir, 'electron'), 0o755);
    return dir;
  }

  function runToEnd(args: string[], env: NodeJS.ProcessEnv, cwd = root): Promise<{ code: number | null; out: string; err: string }> {
    const child = spawn(process.execPath, [join(root, 'out/main/cli.js'), ...args], { cwd, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
  }

  it('says why in one line when its sandbox is refused (Ubuntu 24.04, AppArmor), and serves browser mode instead', async () => {
    const electron = fakeElectron(
      'sandbox-refused',
      `process.stderr.write("[4317:0206/185050.022641:FATAL:setuid_sandbox_host.cc(158)] The SUID sandbox helper binary was found, but is not configured correctly. Rather than run without sandboxing I'm aborting now. You need to make sure that /opt/x/chrome-sandbox is owned by root and has mode 4755.\\n");
       process.kill(process.pid, 'SIGTRAP');`,
    );
    const dataDir = join(work, 'data-sandbox');
    const app = await run(
      ['start', '--port', '0', '--data-dir', dataDir],
      { ELECTRON_OVERRIDE_DIST_PATH: electron, NPS_SQLITE_BINDING: binding('sandbox') },
      /browser mode\): (\S+)/,
    );
    const lines = app.out.split('\n').filter((l) => l.startsWith('Electron'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Electron ended before its window appeared: its sandbox (was refused: .+|could not start \(.+\)); starting browser mode instead\.$/,
    );
    expect(lines[0]).toContain('docs/desktop.md, "Ubuntu 23.10 and later"');
    expect(app.out).toMatch(/NPS Reconcile \(browser mode\): http:\/\/127\.0\.0\.1:\d+\/#code=/);
    expect(await app.kill()).toBe(0);
  });

  it('says so when Electron finds no display', async () => {
    const electron = fakeElectron('no-display', `process.stderr.write('Missing X server or $DISPLAY\\n'); process.exit(1);`);
    const app = await run(
      ['start', '--port', '0', '--data-dir', join(work, 'data-display')],
      { ELECTRON_OVERRIDE_DIST_PATH: electron, NPS_SQLITE_BINDING: binding('display') },
      /browser mode\): (\S+)/,
    );
    expect(app.out).toContain(
      'Electron ended before its window appeared: there is no display to open its window on (DISPLAY or WAYLAND_DISPLAY); starting browser mode instead.',
    );
    await app.kill();
  });

  it('hands Electron the data folder as an absolute path, and ends with it once its window was open', async () => {
    const electron = fakeElectron(
      'opens',
      `console.log('data: ' + process.env.NPS_DATA_DIR); console.log(${JSON.stringify(WINDOW_OPEN_LINE)}); process.exit(0);`,
    );
    const r = await runToEnd(
      ['start', '--data-dir', 'books'],
      { ELECTRON_OVERRIDE_DIST_PATH: electron, NPS_SQLITE_BINDING: binding('opens') },
      work,
    );
    expect(r.code).toBe(0);
    expect(r.out).toContain(`data: ${join(work, 'books')}\n`);
    expect(r.out).not.toContain('browser mode');
  });

  it('adds nothing when the app refused to start and said why itself', async () => {
    const electron = fakeElectron(
      'refuses',
      `console.error('cannot open the data in /x: the store is damaged'); process.exit(${REFUSED_EXIT_CODE});`,
    );
    const r = await runToEnd(['start', '--data-dir', join(work, 'data-refused')], {
      ELECTRON_OVERRIDE_DIST_PATH: electron,
      NPS_SQLITE_BINDING: binding('refuses'),
    });
    expect(r.code).toBe(REFUSED_EXIT_CODE);
    expect(r.err.trim()).toBe('cannot open the data in /x: the store is damaged');
    expect(r.out).toBe('');
  });

  it('refuses an empty --data-dir by name', async () => {
    const r = await runToEnd(['start', '--data-dir', ''], { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    expect(r.code).toBe(1);
    expect(r.err.trim()).toBe('--data-dir: must name a folder, got an empty value');
  });

  it('does not start Electron on a binding NPS_SQLITE_BINDING names for another Electron', async () => {
    const electron = fakeElectron(
      'never-run',
      `require('node:fs').writeFileSync(${JSON.stringify(join(work, 'ran'))}, ''); process.exit(0);`,
    );
    const stale = binding('stale-named', { electron: '44.0.0' });
    const app = await run(
      ['start', '--port', '0', '--data-dir', join(work, 'data-stale')],
      { ELECTRON_OVERRIDE_DIST_PATH: electron, NPS_SQLITE_BINDING: stale },
      /browser mode\): (\S+)/,
    );
    expect(app.out.split('\n')[0]).toMatch(
      new RegExp(
        `^Electron is not available here: NPS_SQLITE_BINDING: .+ was built for Electron 44\\.0\\.0, .+; starting browser mode instead\\.$`,
      ),
    );
    await app.kill();
    expect(existsSync(join(work, 'ran'))).toBe(false);
  });
});

describe('better-sqlite3 for npm start', () => {
  const work = mkdtempSync(join(tmpdir(), 'nps-start-binding-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const needed = neededIn(root, { platform: process.platform, arch: process.arch });
  // A script, not an Electron binary: its architecture is this process's.
  const electron = join(work, 'electron');
  writeFileSync(electron, '#!/bin/sh\n');

  it('is built again when its stamp names another Electron, better-sqlite3 or architecture, and only then', () => {
    const file = electronBuildStandIn(join(work, 'checkout', SQLITE_NODE_FILE), needed, { electron: '44.0.0' });
    const built: string[] = [];
    const rebuild = (target: { arch: string }) => {
      built.push(target.arch);
      electronBuildStandIn(file, needed);
      return undefined;
    };
    expect(ensureElectronSqlite(electron, { binding: file, rebuild })).toEqual({ path: file });
    expect(built).toEqual([process.arch]);
    // Now current: no second build.
    expect(ensureElectronSqlite(electron, { binding: file, rebuild })).toEqual({ path: file });
    expect(built).toHaveLength(1);
  });

  it('is built again when it was compiled with Node’s headers (npm’s nodedir) although stamped for Electron', () => {
    if (!needed.abi) return;
    const file = stampedCopy(join(work, 'node-headers', SQLITE_NODE_FILE), needed);
    const built: string[] = [];
    const result = ensureElectronSqlite(electron, { binding: file, rebuild: () => (built.push('again'), 'gyp ERR! no network') });
    expect(built).toEqual(['again']);
    expect(result).toEqual({ reason: 'better-sqlite3 could not be built for Electron (gyp ERR! no network)' });
  });

  it('says why when the build does not give what is needed', () => {
    const file = join(work, 'failing', SQLITE_NODE_FILE);
    const result = ensureElectronSqlite(electron, { binding: file, rebuild: () => 'gyp ERR! find Python' });
    expect(result).toEqual({ reason: 'better-sqlite3 could not be built for Electron (gyp ERR! find Python)' });
  });
});

describe('why Electron ended', () => {
  const exit = { code: null, signal: 'SIGTRAP' };
  it('tells a refused sandbox, no display and a missing library apart; else gives its last line', () => {
    const fatal =
      "[9919:0523/121338.136396:FATAL:setuid_sandbox_host.cc(158)] The SUID sandbox helper binary was found, but is not configured correctly. Rather than run without sandboxing I'm aborting now.";
    expect(whyElectronStopped(fatal, exit, { ok: false, reason: 'AppArmor says no' })).toBe('its sandbox was refused: AppArmor says no');
    expect(whyElectronStopped(fatal, exit, { ok: true })).toBe(
      'its sandbox could not start (see docs/desktop.md, "Ubuntu 23.10 and later")',
    );
    expect(
      whyElectronStopped('[12:ERROR:ozone_platform_x11.cc(240)] Missing X server or $DISPLAY\n', { code: 1, signal: null }, { ok: true }),
    ).toBe('there is no display to open its window on (DISPLAY or WAYLAND_DISPLAY)');
    expect(
      whyElectronStopped(
        'electron: error while loading shared libraries: libnss3.so: cannot open shared object file',
        { code: 127, signal: null },
        { ok: true },
      ),
    ).toBe('a library it needs is missing (libnss3.so; docs/desktop.md lists what Electron needs on Linux)');
    expect(whyElectronStopped('first\nsomething broke\n    at main (x.js:1)\n', { code: 1, signal: null }, { ok: true })).toBe(
      'it exited with code 1: something broke',
    );
    expect(whyElectronStopped('', { code: null, signal: 'SIGKILL' }, { ok: true })).toBe('it was ended by SIGKILL');
  });

  it('knows where AppArmor refuses an unpacked Electron its sandbox', () => {
    const sys = (values: Record<string, string>) => {
      const dir = mkdtempSync(join(tmpdir(), 'nps-sysctl-'));
      for (const [k, v] of Object.entries(values)) writeFileSync(join(dir, k), v + '\n');
      return dir;
    };
    const electron = join(tmpdir(), 'no-such-electron', 'electron');
    const ubuntu = electronSandbox(electron, sys({ apparmor_restrict_unprivileged_userns: '1', unprivileged_userns_clone: '1' }));
    const debian = electronSandbox(electron, sys({ unprivileged_userns_clone: '1' }));
    const closed = electronSandbox(electron, sys({ unprivileged_userns_clone: '0' }));
    if (process.platform !== 'linux') return expect([ubuntu, debian, closed]).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    expect(ubuntu).toEqual({
      ok: false,
      reason:
        'AppArmor refuses user namespaces to an unpacked Electron here (kernel.apparmor_restrict_unprivileged_userns = 1; see docs/desktop.md, "Ubuntu 23.10 and later")',
    });
    expect(debian).toEqual({ ok: true });
    expect(closed).toEqual({ ok: false, reason: 'unprivileged user namespaces are off here (kernel.unprivileged_userns_clone = 0)' });
  });
});
