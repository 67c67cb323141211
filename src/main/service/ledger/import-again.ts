import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ImportReport } from '../../../shared/ledger';
import type { CallMeta, ServiceContext } from '../context';
import { mayRepeatImport, repeatImport } from './import-repository';
import type { RowReader, UnknownTokens } from './rows';
import { FileError, streamRows, type OpenedSource, type Sniffed } from '../tables/source';

/*
 * Importing a file again that an earlier import read the same way, with no record updated since
 * (see repeatImport in import-repository.ts): every valid row is unchanged, and the report says so
 * without reading a row (but those rejected for an unknown token, read again for the tokens the
 * report lists). Hashing the file is then most of its time: reading each row again is what this
 * spares.
 */

export interface Again {
  opened: OpenedSource;
  sniffed: Sniffed;
  fingerprint: string;
  importId: string;
  startedAt: number;
  t0: number;
  preset: string;
  readAs: ImportReport['read_as'];
  /** The wallet every row goes to (a file without a wallet_id column), or null. */
  walletId: string | null;
  dryRun: boolean;
  onProgress?: CallMeta['onProgress'];
  /** A row reader of the import's own (rows are read in order: the import reads the file with another), and the unknown tokens it notes. */
  reader: () => { read: RowReader; unknownTokens: UnknownTokens };
}

async function sha256Of(opened: OpenedSource, onProgress: Again['onProgress']): Promise<string> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of opened.stream()) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
    onProgress?.({ done: 0, bytes: Math.min(bytes, opened.size - 1), totalBytes: opened.size });
  }
  return hash.digest('hex');
}

/**
 * The file's SHA-256, reading through the reader the rows (by number) an earlier import rejected for
 * an unknown token, so that they note their tokens as they did then; undefined when it cannot be read.
 */
async function readUnknownTokenRows(a: Again, rows: readonly number[], read: RowReader): Promise<string | undefined> {
  const wanted = new Set(rows);
  try {
    const file = await streamRows(a.opened, a.sniffed, {
      rows: (batch, first) => {
        for (let k = 0; k < batch.length; k++) if (wanted.has(first + k)) read(batch[k]!, first + k);
      },
      progress: (bytes) => a.onProgress?.({ done: 0, bytes: Math.min(bytes, a.opened.size - 1), totalBytes: a.opened.size }),
    });
    return file.sha256;
  } catch (err) {
    // The earlier import read this file whole: a file that now fails is not that file (reading it all says why).
    if (err instanceof FileError) return undefined;
    throw err;
  }
}

/** The report of importing (or previewing) the file again, or undefined when its rows must be read. */
export async function importAgain(
  ctx: ServiceContext,
  a: Again,
  finish: (report: Omit<ImportReport, 'message'>) => ImportReport,
): Promise<ImportReport | undefined> {
  const sqlite = ctx.db.$client;
  const unknownTokenRows = mayRepeatImport(sqlite, a.fingerprint, a.opened.size);
  if (unknownTokenRows === undefined) return undefined;
  const { read, unknownTokens } = a.reader();
  const sha256 = unknownTokenRows.length ? await readUnknownTokenRows(a, unknownTokenRows, read) : await sha256Of(a.opened, a.onProgress);
  if (sha256 === undefined) return undefined;
  // An import may have committed while the file was hashed: look again, in one synchronous step
  // with the record, once no import holds the write lock.
  do await ctx.engine.writable();
  while (ctx.engine.importing);
  const repeated = repeatImport(
    sqlite,
    { fingerprint: a.fingerprint, size: a.opened.size, sha256, unknownTokenRows },
    a.dryRun
      ? null
      : (r) => ({
          import_id: a.importId,
          file_name: a.opened.name,
          file_sha256: sha256,
          file_size: a.opened.size,
          format: a.sniffed.format,
          preset: a.preset,
          rows_total: r.rowsTotal,
          added: 0,
          updated: 0,
          unchanged: r.unchanged,
          rejected: r.rejections.length,
          started_at: a.startedAt,
          finished_at: ctx.now(),
          wallet_id: a.walletId,
          read_as: a.readAs,
        }),
  );
  if (repeated === undefined) return undefined;
  a.onProgress?.({ done: repeated.rowsTotal, bytes: a.opened.size, totalBytes: a.opened.size });
  return finish({
    import_id: a.dryRun ? null : a.importId,
    dry_run: a.dryRun,
    file_name: a.opened.name,
    preset: a.preset,
    format: a.sniffed.format,
    rows_total: repeated.rowsTotal,
    added: 0,
    updated: 0,
    unchanged: repeated.unchanged,
    rejected: repeated.rejections.length,
    rejections: repeated.rejections,
    updates: [],
    wallets_created: [],
    unknown_tokens: [...unknownTokens.values()].sort((x, y) => y.rows - x.rows),
    read_as: a.readAs,
    duration_ms: Math.round(performance.now() - a.t0),
  });
}
