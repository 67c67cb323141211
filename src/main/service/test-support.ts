import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { defaultMigrationsFolder } from './db/open';
import { ServiceError } from './errors';
import { openService, type Service, type ServiceOptions } from './index';

/** A copy of the migrations folder into dir that stops before the migration whose tag ends with tagEnd: the store as it was before it. */
export function migrationsBefore(dir: string, tagEnd: string): string {
  const before = join(dir, `migrations-before${tagEnd}`);
  cpSync(defaultMigrationsFolder(), before, { recursive: true });
  const journalFile = join(before, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag.endsWith(tagEnd));
  if (at < 0) throw new Error(`no migration ${tagEnd}`);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalFile, JSON.stringify(journal));
  return before;
}

/** A service over a fresh SQLite file in its own temporary data directory. */
export function tempService(opts: Partial<ServiceOptions> = {}): Service & { dataDir: string; dispose(): void } {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'nps-test-'));
  const service = openService({ ...opts, dataDir });
  let closed = false;
  return {
    ...service,
    dataDir,
    close: () => {
      if (!closed) service.close();
      closed = true;
    },
    dispose: () => {
      if (!closed) service.close();
      closed = true;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The ServiceError a call fails with (the test fails if it succeeds or fails otherwise). */
export async function failure(p: Promise<unknown>): Promise<ServiceError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  return err as ServiceError;
}
