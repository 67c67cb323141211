import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nps } from '../cli/nps.test-support';
import { startServe } from '../cli/serve.test-support';
import { findService, isBusy, publishService, takeDataFolder } from './data-folder';

/*
 * Other users of the computer read nothing: the data folder is 0700 and every file the service
 * writes in it 0600; a folder an older version left wider is tightened. Checked by the modes, and,
 * where the tests run as root, as the user nobody (setpriv), who must not be able to list the folder
 * or read the store.
 */

const root = mkdtempSync(join(tmpdir(), 'nps-private-'));
// The folders below are reachable by anyone: only their own modes keep nobody out.
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Root, with setpriv able to become nobody (not every container allows it). */
const asNobody =
  process.getuid?.() === 0 &&
  existsSync('/usr/bin/setpriv') &&
  spawnSync('/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'true']).status === 0;
/** Run a command as the user nobody: whether it succeeded. */
const nobodyCan = (...cmd: string[]): boolean =>
  spawnSync('/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', ...cmd], { stdio: 'ignore' }).status === 0;
const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Every file and folder under dir (dir itself included), with its mode. */
function modes(dir: string): Record<string, number> {
  const out: Record<string, number> = { '.': modeOf(dir) };
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    out[name] = modeOf(path);
    if (statSync(path).isDirectory()) for (const inner of readdirSync(path)) out[`${name}/${inner}`] = modeOf(join(path, inner));
  }
  return out;
}

describe('the data folder is the user’s alone', () => {
  it('a new folder: 0700, the store, its log, the logs and api.json 0600; nobody else can list or read them', async () => {
    const dataDir = join(root, 'new');
    const serving = await startServe(dataDir);
    try {
      const seen = modes(dataDir);
      expect(Object.keys(seen)).toEqual(
        expect.arrayContaining(['nps.sqlite', 'nps.sqlite-wal', 'nps.sqlite-shm', 'api.json', 'local.token', 'nps.lock', 'logs']),
      );
      for (const [name, m] of Object.entries(seen)) expect(m.toString(8), name).toBe(name === '.' || name === 'logs' ? '700' : '600');
      if (asNobody) {
        expect(nobodyCan('ls', root)).toBe(true);
        expect(nobodyCan('ls', dataDir)).toBe(false);
        expect(nobodyCan('cat', join(dataDir, 'nps.sqlite'))).toBe(false);
      }
    } finally {
      await serving.stop();
    }
  }, 60_000);

  it('a folder an older version left readable (0755, files 0644) is tightened when the service starts', async () => {
    const dataDir = join(root, 'older');
    expect((await nps(['wallets', 'create', 'Treasury', '--data-dir', dataDir])).code).toBe(0);
    mkdirSync(join(dataDir, 'logs'), { recursive: true });
    writeFileSync(join(dataDir, 'logs', 'nps.1.log'), '{"level":30}\n');
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'logs'), 0o755);
    for (const name of ['nps.sqlite', 'logs/nps.1.log']) chmodSync(join(dataDir, name), 0o644);
    // As it was: anyone could copy the store.
    if (asNobody) expect(nobodyCan('cat', join(dataDir, 'nps.sqlite'))).toBe(true);

    const serving = await startServe(dataDir);
    try {
      const seen = modes(dataDir);
      for (const [name, m] of Object.entries(seen)) expect(m.toString(8), name).toBe(name === '.' || name === 'logs' ? '700' : '600');
      if (asNobody) {
        expect(nobodyCan('ls', dataDir)).toBe(false);
        expect(nobodyCan('cat', join(dataDir, 'nps.sqlite'))).toBe(false);
      }
    } finally {
      await serving.stop();
    }
  }, 60_000);

  it('a folder that also holds other files keeps its mode, with a warning naming it; the store in it is still 0600', async () => {
    const dataDir = join(root, 'shared');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'notes.txt'), 'mine');
    const made = await nps(['wallets', 'create', 'Treasury', '--data-dir', dataDir]);
    expect(made.code).toBe(0);
    expect(made.err).toContain(
      `warning: the data folder ${dataDir} can be read by other users (mode 0755); it also holds files that are not NPS Reconcile's (notes.txt)`,
    );
    expect(modeOf(dataDir)).toBe(0o755);
    expect(modeOf(join(dataDir, 'nps.sqlite'))).toBe(0o600);
    if (asNobody) {
      expect(nobodyCan('ls', dataDir)).toBe(true);
      expect(nobodyCan('cat', join(dataDir, 'nps.sqlite'))).toBe(false);
    }
  }, 60_000);
});

describe('one writer', () => {
  it('the folder’s lock is exclusive, and free again once let go', () => {
    const dataDir = join(root, 'lock');
    const first = takeDataFolder(dataDir);
    expect(isBusy(first)).toBe(false);
    const second = takeDataFolder(dataDir);
    expect(second).toEqual({ busy: true, pid: process.platform === 'linux' ? process.pid : undefined });
    if (!isBusy(first)) first.release();
    const third = takeDataFolder(dataDir);
    expect(isBusy(third)).toBe(false);
    if (!isBusy(third)) third.release();
    expect(modeOf(join(dataDir, 'nps.lock'))).toBe(0o600);
  });

  it('api.json left by a crash is not taken for a service: its address is called, and nothing of that folder answers there', async () => {
    const dataDir = join(root, 'stale');
    // A service that ran and died: its files name a port something else now listens on.
    const serving = await startServe(join(root, 'elsewhere'));
    try {
      mkdirSync(dataDir, { recursive: true });
      const port = Number(new URL(serving.url).port);
      publishService(dataDir, { baseUrl: `${serving.url}/nps`, host: '127.0.0.1', port }, 'a-token-of-a-dead-service');
      expect(await findService(dataDir)).toBeUndefined();
      // So the command opens the store itself (the folder is not locked), and works.
      const listed = await nps(['wallets', 'list', '--data-dir', dataDir]);
      expect(listed).toMatchObject({ code: 0, err: '' });
    } finally {
      await serving.stop();
    }
  }, 60_000);

  it('a stopping service removes api.json and local.token only if they are still the ones it wrote', () => {
    const dataDir = join(root, 'own-files');
    mkdirSync(dataDir, { recursive: true });
    const mine = publishService(dataDir, { baseUrl: 'http://127.0.0.1:1/nps', host: '127.0.0.1', port: 1 }, 'first');
    publishService(dataDir, { baseUrl: 'http://127.0.0.1:2/nps', host: '127.0.0.1', port: 2 }, 'second');
    mine.remove();
    expect(readdirSync(dataDir).sort()).toEqual(['api.json', 'local.token']);
  });
});
