import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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

async function page(url: string): Promise<{ token: string; html: string }> {
  const html = await (await fetch(url)).text();
  return { html, token: /name="nps-token" content="([^"]+)"/.exec(html)?.[1] ?? '' };
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
      const url = /browser mode\): (\S+)/.exec(app.out)![1]!;
      const { html, token } = await page(url);
      expect(html).toContain('<div id="root">');
      expect(token).toMatch(/^[\w-]{43}$/);
      const rpc = (t: string) =>
        fetch(`${url}app/rpc/app-info`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-nps-token': t }, body: '{}' });
      expect((await rpc('wrong')).status).toBe(401);
      const info = (await (await rpc(token)).json()) as { data: { mode: string; data_dir: string; api: { state: string } } };
      expect(info.data).toMatchObject({ mode: 'browser', data_dir: dataDir, api: { state: 'running' } });
      expect(await app.kill()).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('serve --ui', () => {
  it('gives every run its own token', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'nps-serve-ui-'));
    try {
      const tokens: string[] = [];
      for (let i = 0; i < 2; i++) {
        const app = await run(['serve', '--ui', '--port', '0', '--data-dir', dataDir], {}, /browser mode\): (\S+)/);
        tokens.push((await page(/browser mode\): (\S+)/.exec(app.out)![1]!)).token);
        await app.kill();
      }
      expect(tokens[0]).not.toBe(tokens[1]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to serve the screens beyond this machine', async () => {
    const child = spawn(process.execPath, ['out/main/cli.js', 'serve', '--ui', '--host', '0.0.0.0'], { cwd: root });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    expect(await new Promise((r) => child.on('exit', r))).toBe(1);
    expect(err.trim()).toBe('--host: the screens (--ui) are served on loopback only (127.0.0.1, localhost, ::1), not 0.0.0.0');
  });
});
