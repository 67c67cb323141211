import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { UserName } from '../../shared/app';
import { writePrivate } from './data-folder';
import type { Db } from './db/open';
import { forgetStoredUserName, storedUserName } from './db/user';

/*
 * The named local user: who acts in the desktop app and the CLI, as every ticket event records it.
 * It belongs to the desktop, not to the store: on a store that several desktops share (team mode,
 * docs/team.md) each acts under its own name. So it is kept in the data folder, beside the local
 * door's token and the logs, as user.json (0600, written whole), read once when the service opens
 * and held; the folder has one writer (data-folder.ts), so nothing else changes it meanwhile.
 * Until a name is set, events record the door (ui, cli), which people read as "the app" or "the command line" (shared/actors.ts).
 */

export const USER_FILE = 'user.json';

const UserFile = z.object({ version: z.literal(1), name: UserName, set_at: z.number().int() });

export interface LocalUser {
  /** The name; "" until one is set. */
  readonly name: string;
  /** Keep a name (already checked with the contract's UserName). */
  set(name: string, at: number): void;
}

type Read = { name: string } | { absent: true } | { unreadable: string };

function readUserFile(file: string): Read {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { absent: true };
    return { unreadable: (err as Error).message };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { unreadable: 'it is not JSON' };
  }
  const parsed = UserFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { unreadable: `${issue.path.join('.') || 'the file'}: ${issue.message}` };
  }
  return { name: parsed.data.name };
}

/**
 * The data folder's named user. A store written by a version that kept the name in its settings
 * hands it over on the first start: the name goes to user.json (unless the folder already has
 * one), then the store forgets it. A user.json that cannot be read is left as it is (and the
 * store's name with it) and named in a warning; events name the door until a name is set again.
 */
export function openLocalUser(dataDir: string, db: Db, now: number, warn: (line: string) => void): LocalUser {
  const file = join(dataDir, USER_FILE);
  const read = readUserFile(file);
  let name = 'name' in read ? read.name : '';
  if ('unreadable' in read) {
    warn(
      `${file} cannot be read (${read.unreadable}): events say "the app" or "the command line" until a name is set again (Settings, Your name; or nps user NAME)`,
    );
  } else {
    const stored = storedUserName(db);
    if (stored !== undefined) {
      const handed = UserName.safeParse(stored);
      let kept = true;
      if ('absent' in read && handed.success) {
        name = handed.data;
        try {
          writeUserFile(file, handed.data, now);
        } catch (err) {
          kept = false;
          warn(
            `the user's name could not be moved from the store to ${file} (${(err as Error).message}): it is used, and moved at the next start`,
          );
        }
      }
      // Written to the folder first: a crash in between leaves the name in both, and the next start finishes.
      if (kept) forgetStoredUserName(db);
    }
  }
  return {
    get name() {
      return name;
    },
    set(next, at) {
      writeUserFile(file, next, at);
      name = next;
    },
  };
}

function writeUserFile(file: string, name: string, at: number): void {
  writePrivate(file, JSON.stringify({ version: 1, name, set_at: at }, null, 2) + '\n');
}
