import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test } from 'vitest';
import { DB_FILE } from './index';
import { USER_FILE } from './local-user';
import { openClaimTicket } from './tickets/fixtures.test-support';
import { failure, tempService } from './test-support';

/*
 * The named user belongs to the desktop (its data folder), not to the store: on a store several
 * desktops share each acts under its own name. It is read from user.json when the service opens,
 * kept across restarts, and a store that held it (versions before) hands it over once.
 */

const ui = { actor: 'ui' as const };
const cli = { actor: 'cli' as const };
const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'nps-user-'));
  folders.push(dir);
  return dir;
};

/** The store's settings row an older version kept the name in (the table is unchanged since). */
const storedName = (dataDir: string) => {
  const db = new Database(join(dataDir, DB_FILE), { readonly: true });
  try {
    return db.prepare("SELECT value FROM settings WHERE key = 'user_name'").pluck().get();
  } finally {
    db.close();
  }
};
const storeName = (dataDir: string, name: string) => {
  const db = new Database(join(dataDir, DB_FILE));
  try {
    db.prepare("INSERT INTO settings (key, value, updated_at) VALUES ('user_name', ?, 1)").run(name);
  } finally {
    db.close();
  }
};

/** Who the events of a ticket dismissed now from the window name. */
async function actorOfNextEvent(svc: ReturnType<typeof tempService>): Promise<string> {
  const id = openClaimTicket(svc.ctx.db, { subject: `s-${Math.random()}`, at: Date.now() });
  const t = await svc.invoke('ticket-transition', { ticket_id: id, to: 'Dismissed', note: 'noise' }, ui);
  return t.events.at(-1)!.actor;
}

describe('the named user, kept in the data folder', () => {
  test('set through the contract, it is written to user.json (0600), not to the store, and read back after a restart', async () => {
    const dir = folder();
    const first = tempService({ dataDir: dir });
    expect(await first.invoke('app-user-get', {}, ui)).toEqual({ name: '' });
    expect(await actorOfNextEvent(first)).toBe('ui');
    await first.invoke('app-user-set', { name: '  Anna Berg ' }, cli);
    expect(await actorOfNextEvent(first)).toBe('Anna Berg');
    first.close();

    const file = join(dir, USER_FILE);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ version: 1, name: 'Anna Berg' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(storedName(dir)).toBeUndefined();

    const again = tempService({ dataDir: dir });
    try {
      expect(await again.invoke('app-user-get', {}, ui)).toEqual({ name: 'Anna Berg' });
      expect(await actorOfNextEvent(again)).toBe('Anna Berg');
    } finally {
      again.close();
    }
  });

  test("is the data folder's own: a user.json put there names the user, whatever the store", async () => {
    const dir = folder();
    tempService({ dataDir: dir }).close();
    writeFileSync(join(dir, USER_FILE), JSON.stringify({ version: 1, name: 'Carla', set_at: 1 }));
    const svc = tempService({ dataDir: dir });
    try {
      expect(await svc.invoke('app-user-get', {}, ui)).toEqual({ name: 'Carla' });
      expect(await actorOfNextEvent(svc)).toBe('Carla');
    } finally {
      svc.close();
    }
  });

  test('a bad name is refused naming the field, and the name kept stays', async () => {
    const svc = tempService({ dataDir: folder() });
    try {
      await svc.invoke('app-user-set', { name: 'Dora' }, ui);
      const before = readFileSync(join(svc.dataDir, USER_FILE), 'utf8');
      expect((await failure(svc.invoke('app-user-set', { name: '   ' }, ui))).message).toBe('name: must not be empty');
      expect((await failure(svc.invoke('app-user-set', { name: 'x'.repeat(81) }, ui))).message).toBe('name: must be at most 80 characters');
      expect((await failure(svc.invoke('app-user-set', { name: 7 }, ui))).message).toBe('name: must be a string');
      expect(readFileSync(join(svc.dataDir, USER_FILE), 'utf8')).toBe(before);
      expect(await svc.invoke('app-user-get', {}, ui)).toEqual({ name: 'Dora' });
    } finally {
      svc.close();
    }
  });

  test('a user.json that cannot be read is named in a warning and left as it is; events name the door until a name is set', async () => {
    const dir = folder();
    tempService({ dataDir: dir }).close();
    storeName(dir, 'Old Name');
    writeFileSync(join(dir, USER_FILE), '{"version":1,"name":');
    const warnings: string[] = [];
    const svc = tempService({ dataDir: dir, onWarning: (line) => warnings.push(line) });
    try {
      expect(warnings).toEqual([
        `${join(dir, USER_FILE)} cannot be read (it is not JSON): events say "the app" or "the command line" until a name is set again (Settings, Your name; or nps user NAME)`,
      ]);
      expect(await actorOfNextEvent(svc)).toBe('ui');
      // Nothing is lost: the file and the store's name stay until a name is set.
      expect(readFileSync(join(dir, USER_FILE), 'utf8')).toBe('{"version":1,"name":');
      expect(storedName(dir)).toBe('Old Name');
      await svc.invoke('app-user-set', { name: 'Eve' }, ui);
      expect(await actorOfNextEvent(svc)).toBe('Eve');
    } finally {
      svc.close();
    }
  });
});

describe('a store that kept the name (versions before) hands it over once', () => {
  test('the first start keeps the name the user had, moves it to user.json and takes it out of the store; later names are the folder’s', async () => {
    const dir = folder();
    tempService({ dataDir: dir }).close();
    storeName(dir, 'Ada Lovelace');

    const upgraded = tempService({ dataDir: dir });
    expect(await upgraded.invoke('app-user-get', {}, ui)).toEqual({ name: 'Ada Lovelace' });
    expect(await actorOfNextEvent(upgraded)).toBe('Ada Lovelace');
    expect(storedName(dir)).toBeUndefined();
    expect(JSON.parse(readFileSync(join(dir, USER_FILE), 'utf8'))).toMatchObject({ name: 'Ada Lovelace' });
    await upgraded.invoke('app-user-set', { name: 'Grace' }, ui);
    upgraded.close();

    const later = tempService({ dataDir: dir });
    try {
      expect(await later.invoke('app-user-get', {}, ui)).toEqual({ name: 'Grace' });
    } finally {
      later.close();
    }
  });

  test('a folder that already names its user keeps it; the store’s name is dropped (a start that stopped half-way through the handover)', async () => {
    const dir = folder();
    tempService({ dataDir: dir }).close();
    storeName(dir, 'Ada Lovelace');
    writeFileSync(join(dir, USER_FILE), JSON.stringify({ version: 1, name: 'Ada L.', set_at: 1 }));
    const svc = tempService({ dataDir: dir });
    try {
      expect(await svc.invoke('app-user-get', {}, ui)).toEqual({ name: 'Ada L.' });
      expect(storedName(dir)).toBeUndefined();
    } finally {
      svc.close();
    }
  });
});
