import type { ImportRecord, WriterStats } from '../src/main/service/db/ledger-writer';

/**
 * The record a bench's import is kept with when it feeds a writer directly (no file read, no
 * report): its counts as the writer found them, the repeats as its rejections.
 */
export function benchImportRecord(importId: string, fileName: string, rows: number, stats: WriterStats): ImportRecord {
  return {
    summary: {
      import_id: importId,
      file_name: fileName,
      file_sha256: '',
      file_size: 0,
      format: 'csv',
      preset: 'native',
      rows_total: rows,
      added: stats.added,
      updated: stats.updated,
      unchanged: stats.unchanged,
      rejected: stats.repeats.length,
      started_at: 0,
      finished_at: 0,
      wallet_id: null,
      read_as: null,
    },
    rejections: stats.repeats,
  };
}
