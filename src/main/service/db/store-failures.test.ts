import Database from 'better-sqlite3';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateLedger } from '../../../../bench/generate-ledger';
import { callForWindow } from '../app/call';
import { ServiceError } from '../errors';
import { buildServer } from '../http/server';
import { DB_FILE, openService } from '../index';
import { tempService } from '../test-support';
import { defaultMigrationsFolder, SERVING_BUSY_TIMEOUT_MS } from './open';
import { sayFor } from '../said';

/*
 * Issue 13, "Clean failures": a store that cannot be used is one line naming the file, the cause
 * and what to do (5001 on every door), and the store is left as it was. Every case is a real file
 * in a temporary data directory, opened by the real service or the compiled CLI.
 */

const root = join(import.meta.dirname, '../../../..');
const dirs: string[] = [];
let template: string;

beforeAll(() => {
  // A store made by this build, closed: its WAL checkpointed into nps.sqlite, which is alone.
  const svc = tempService();
  svc.close();
  dirs.push(svc.dataDir);
  template = join(svc.dataDir, DB_FILE);
});

afterAll(() => {
  for (const dir of dirs) {
    chmodSync(dir, 0o755);
    rmSync(dir, { recursive: true, force: true });
  }
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nps-store-'));
  dirs.push(dir);
  return dir;
}

/** A data directory holding a copy of a real store. */
function storeCopy(): { dir: string; file: string } {
  const dir = dataDir();
  const file = join(dir, DB_FILE);
  copyFileSync(template, file);
  return { dir, file };
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * What the data directory holds, file by file (an empty -wal or -shm of SQLite's own is not content,
 * nor is the empty nps.lock the one writer holds: data-folder.ts).
 */
function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if ((/-(wal|shm)$/.test(name) || name === 'nps.lock') && statSync(path).size === 0) continue;
    out[name] = sha256(path);
  }
  return out;
}

function openFailure(dir: string): ServiceError {
  let failure: unknown;
  try {
    openService({ dataDir: dir }).close();
  } catch (err) {
    failure = err;
  }
  expect(failure).toBeInstanceOf(ServiceError);
  expect((failure as ServiceError).code).toBe(5001);
  expect((failure as ServiceError).httpStatus).toBe(503);
  // As the command line says it (the window names another data folder its own way: said.ts).
  const { code, message } = failure as ServiceError;
  expect(sayFor(message, 'window')).not.toContain('--data-dir');
  return new ServiceError(code, sayFor(message, 'cli'));
}

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

/** `npm run nps -- ARGS` as a user runs it: the compiled CLI in its own process, as `user` when given. */
function cli(args: string[], user?: { uid: number; gid: number }): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['out/main/cli.js', ...args], { cwd: root, ...user });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

/** Exit 1 and exactly one line on stderr: the message, no stack. */
function expectOneLine(ran: Ran, message: string): void {
  expect(ran.err).toBe(`error 5001: ${message}\n`);
  expect(ran.code).toBe(1);
}

const notAStore = (file: string) =>
  `${file} is not an NPS Reconcile store (SQLite says: file is not a database); move it away or point --data-dir elsewhere`;
const damaged = (file: string) =>
  `${file} is damaged (SQLite says: database disk image is malformed); restore it from a backup, or move it away to start an empty store (this version will not repair or replace it)`;
const readOnly = (file: string) =>
  `${file} is read-only (SQLite says: attempt to write a readonly database); make the file and its folder writable by this user, or point --data-dir elsewhere`;

describe('a file that is not a store', () => {
  const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(600, 7)]);
  test.each([
    ['a text file', Buffer.from('account,amount\nalice,10\n')],
    ['a PNG', png],
  ])('%s saved as nps.sqlite: refused in one line, left as it was', async (_what, bytes) => {
    const dir = dataDir();
    const file = join(dir, DB_FILE);
    writeFileSync(file, bytes);
    const before = contents(dir);

    expect(openFailure(dir).message).toBe(notAStore(file));
    expectOneLine(await cli(['keys', 'list', '--data-dir', dir]), notAStore(file));
    expect(contents(dir)).toEqual(before);
  });

  test('a data folder that cannot be made (a file is in the way) is said the same way', async () => {
    const blocker = join(dataDir(), 'not-a-folder');
    writeFileSync(blocker, 'x');
    const dir = join(blocker, 'data');
    const message = openFailure(dir).message;
    expect(message).toMatch(
      /^the data folder .*not-a-folder\/data cannot be created \(ENOTDIR: not a directory, .*\); point --data-dir elsewhere$/,
    );
    expectOneLine(await cli(['chains', 'list', '--data-dir', dir]), message);
  });
});

describe('a damaged store', () => {
  test('cut off in the middle of a page: refused at open, never recreated', async () => {
    const { dir, file } = storeCopy();
    const whole = readFileSync(file);
    writeFileSync(file, whole.subarray(0, Math.floor(whole.length / 2) + 1000));
    const before = contents(dir);

    expect(openFailure(dir).message).toBe(damaged(file));
    expectOneLine(await cli(['keys', 'list', '--data-dir', dir]), damaged(file));
    expect(contents(dir)).toEqual(before);
  });

  test('garbage over the pages of a table: the window and the API answer 5001 when it is read', async () => {
    const { dir, file } = storeCopy();
    const probe = new Database(file, { readonly: true });
    const pageSize = probe.pragma('page_size', { simple: true }) as number;
    const rootPage = probe.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'tokens'").pluck().get() as number;
    probe.close();
    const bytes = readFileSync(file);
    for (let i = (rootPage - 1) * pageSize; i < rootPage * pageSize; i++) bytes[i] = (i * 7919) & 0xff;
    writeFileSync(file, bytes);

    // Opening reads the schema and the catalogue's seeding record, not the tokens: it opens.
    const svc = openService({ dataDir: dir });
    const app = buildServer(svc, { log: () => {} });
    try {
      const ui = await callForWindow(svc.handlers, 'catalogue-tokens-list', {}, { actor: 'ui' }, () => {});
      expect(ui).toEqual({ status: 5001, data: null, msg: damaged(file) });
      const api = await app.inject({ method: 'GET', url: '/nps/tokens' });
      expect(api.statusCode).toBe(503);
      expect(api.json()).toEqual({ status: 5001, data: null, msg: damaged(file) });
    } finally {
      await app.close();
      svc.close();
    }
    expectOneLine(await cli(['tokens', 'list', '--data-dir', dir]), damaged(file));
  });
});

describe('a read-only store', () => {
  // As root, chmod does not stop writes: the CLI then runs as nobody (65534), for whom it does.
  const isRoot = process.getuid?.() === 0;
  const other = isRoot ? { uid: 65534, gid: 65534 } : undefined;
  const otherCanRun =
    process.platform !== 'win32' &&
    (!isRoot || spawnSync(process.execPath, ['-e', 'require("fs").accessSync("out/main/cli.js")'], { cwd: root, ...other }).status === 0);

  function readOnlyCopy(what: 'file' | 'folder'): { dir: string; file: string } {
    const copy = storeCopy();
    if (other) {
      chownSync(copy.dir, other.uid, other.gid);
      chownSync(copy.file, other.uid, other.gid);
    }
    if (what === 'file') {
      chmodSync(copy.file, 0o444);
      chmodSync(copy.dir, 0o755);
    } else chmodSync(copy.dir, 0o555);
    return copy;
  }

  test.skipIf(!otherCanRun)('a read-only file: reads answer, a change is refused in one line and the file is unchanged', async () => {
    const { dir, file } = readOnlyCopy('file');
    const before = sha256(file);
    const listed = await cli(['keys', 'list', '--data-dir', dir], other);
    expect(listed).toMatchObject({ code: 0, err: '' });
    expectOneLine(await cli(['keys', 'create', '--label', 'robot', '--data-dir', dir], other), readOnly(file));
    expect(sha256(file)).toBe(before);
  });

  test.skipIf(!otherCanRun)('a read-only data folder: refused at open in one line, the file unchanged', async () => {
    const { dir, file } = readOnlyCopy('folder');
    const before = contents(dir);
    expectOneLine(await cli(['keys', 'list', '--data-dir', dir], other), readOnly(file));
    // serve too: the log it cannot make there is not a second line before the store's.
    expectOneLine(await cli(['serve', '--port', '0', '--data-dir', dir], other), readOnly(file));
    expect(contents(dir)).toEqual(before);
  });

  test.skipIf(isRoot)('(not as root, where chmod does not stop writes) the window answers 5001 read-only', async () => {
    const { dir, file } = readOnlyCopy('file');
    const svc = openService({ dataDir: dir });
    try {
      const ui = await callForWindow(svc.handlers, 'keys-create', { label: 'x', wallets: null }, { actor: 'ui' }, () => {});
      expect(ui).toEqual({ status: 5001, data: null, msg: readOnly(file) });
    } finally {
      svc.close();
    }
  });
});

test('a full disk (the store held to its size by max_page_count): the import is refused with 5001 and lands not at all', async () => {
  const svc = tempService();
  try {
    const ledger = join(svc.dataDir, 'ledger.csv');
    await generateLedger(ledger, 1500, { seed: 5, wallets: 1 });
    const sqlite = svc.ctx.db.$client;
    sqlite.pragma(`max_page_count = ${sqlite.pragma('page_count', { simple: true }) as number}`);
    const answer = await callForWindow(svc.handlers, 'ledger-import', { source: { path: ledger } }, { actor: 'ui' }, () => {});
    expect(answer).toEqual({
      status: 5001,
      data: null,
      msg: `${join(svc.dataDir, DB_FILE)} cannot grow: the disk (or the store's size limit) is full (SQLite says: database or disk is full); free some space, then try again`,
    });
    expect(sqlite.prepare('SELECT count(*) FROM transactions').pluck().get()).toBe(0);
  } finally {
    svc.dispose();
  }
});

test.skipIf(process.getuid?.() !== 0)(
  'a disk that fills during a large import (an 8 MiB tmpfs): refused with 5001, and the write-ahead log is empty again at once, the service still running',
  async () => {
    const mount = dataDir();
    // Root without the right to mount (some containers): nothing to fill here.
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mount]).status !== 0) return;
    const ledger = join(dataDir(), 'ledger.csv');
    await generateLedger(ledger, 60_000, { seed: 6, wallets: 2 });
    const svc = tempService({ dataDir: join(mount, 'data') });
    try {
      // Writes the service made before (the catalogue's seed), still in the log.
      expect(statSync(join(svc.dataDir, `${DB_FILE}-wal`)).size).toBeGreaterThan(0);
      const answer = await callForWindow(svc.handlers, 'ledger-import', { source: { path: ledger } }, { actor: 'ui' }, () => {});
      expect(answer).toMatchObject({
        status: 5001,
        msg: expect.stringMatching(/cannot grow: the disk \(or the store's size limit\) is full/),
      });
      // The rolled-back rows do not keep the disk full until the service stops.
      expect(statSync(join(svc.dataDir, `${DB_FILE}-wal`)).size).toBe(0);
      expect(svc.ctx.db.$client.prepare('SELECT count(*) FROM transactions').pluck().get()).toBe(0);
      // And the service goes on writing.
      expect((await callForWindow(svc.handlers, 'app-user-set', { name: 'Ada' }, { actor: 'ui' }, () => {})).status).toBe(0);
    } finally {
      svc.dispose();
      spawnSync('umount', [mount]);
    }
  },
  60_000,
);

test('locked by another program: the CLI waits its busy timeout, then says so in one line and changes nothing', async () => {
  const { dir, file } = storeCopy();
  const other = new Database(file);
  try {
    other.exec('BEGIN IMMEDIATE');
    const ran = await cli(['keys', 'create', '--label', 'robot', '--data-dir', dir]);
    expectOneLine(
      ran,
      `${file} is busy: another program is writing to it (one that opened the store itself rather than through this service); nothing was changed, try again when it has finished`,
    );
    other.exec('ROLLBACK');
    expect(other.prepare('SELECT count(*) FROM api_keys').pluck().get()).toBe(0);
  } finally {
    other.close();
  }
}, 30_000);

describe('a store written by a newer version', () => {
  const journal = JSON.parse(readFileSync(join(defaultMigrationsFolder(), 'meta', '_journal.json'), 'utf8')) as {
    entries: { when: number }[];
  };
  const newer = Math.max(...journal.entries.map((e) => e.when)) + 86_400_000;
  const refused = (file: string) =>
    `${file} was written by a newer version of NPS Reconcile (migration ${newer} of ${new Date(newer).toISOString().slice(0, 10)} unknown to this version); update the app, or use --data-dir for another store`;

  /** A copy of a store with a migration this build does not know, in the journal mode given. */
  function newerStore(journalMode: 'wal' | 'delete'): { dir: string; file: string } {
    const copy = storeCopy();
    const db = new Database(copy.file);
    db.pragma(`journal_mode = ${journalMode}`);
    db.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run('f'.repeat(64), newer);
    db.close();
    return copy;
  }

  // In rollback-journal mode, even the pragma that turns on WAL would change the file's header.
  test.each(['wal', 'delete'] as const)(
    '(%s mode) refused before any write: the bytes are the same, no -wal with content',
    async (mode) => {
      const { dir, file } = newerStore(mode);
      const before = sha256(file);
      const files = contents(dir);

      expect(openFailure(dir).message).toBe(refused(file));
      expect(sha256(file)).toBe(before);
      expectOneLine(await cli(['keys', 'list', '--data-dir', dir]), refused(file));
      expectOneLine(await cli(['chains', 'list', '--data-dir', dir]), refused(file));
      expect(sha256(file)).toBe(before);
      expect(contents(dir)).toEqual(files);
      expect(!existsSync(`${file}-wal`) || statSync(`${file}-wal`).size === 0).toBe(true);
    },
    // Two CLI processes: each starts in about a second, several on a loaded two-core host.
    60_000,
  );
});

describe('a serving process and a lock held elsewhere', () => {
  test('waits only briefly for another program’s write lock, then answers 5001 naming the cause, and writes nothing', async () => {
    const svc = tempService({ busyTimeoutMs: SERVING_BUSY_TIMEOUT_MS });
    const other = new Database(svc.ctx.db.$client.name);
    try {
      expect(svc.ctx.db.$client.pragma('busy_timeout', { simple: true })).toBe(SERVING_BUSY_TIMEOUT_MS);
      other.exec('BEGIN IMMEDIATE');
      const answer = await callForWindow(svc.handlers, 'keys-create', { label: 'x', wallets: null }, { actor: 'ui' }, () => {});
      expect(answer).toMatchObject({ status: 5001, data: null, msg: expect.stringMatching(/is busy: another program is writing to it/) });
      other.exec('ROLLBACK');
      expect(await svc.invoke('keys-list', {}, { actor: 'ui' })).toEqual([]);
    } finally {
      other.close();
      svc.dispose();
    }
  });
});
