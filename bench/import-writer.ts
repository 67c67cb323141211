import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LEDGER_FIELDS } from '../src/shared/ledger';
import { openService } from '../src/main/service/index';
import { LedgerWriter } from '../src/main/service/ledger/import-repository';
import { benchImportRecord } from './import-record';

/*
 * NPS_IMPORT_TIMINGS=1 npx tsx bench/import-writer.ts --csv FILE [--rows N] [--base FILE2] [--threads 1]
 * The import's writer alone, on this thread, with the import thread's pragmas (--threads: the
 * sorter's helper threads, 1 as the import thread): a native CSV's rows
 * (generate-ledger's, in the record's field order) as the writer's lines, in batches of about 60 KiB,
 * into a fresh store (or, with --base, into a store that first gets FILE2's rows), then finish;
 * prints the time of the adds and of each index build (NPS_IMPORT_TIMINGS=1). For trying the
 * writer's SQL without reading and checking a file.
 */

const { values } = parseArgs({
  options: { csv: { type: 'string' }, rows: { type: 'string' }, base: { type: 'string' }, threads: { type: 'string', default: '1' } },
});
let order: number[] = [];
const readLines = (file: string, limit: number | undefined): string[] => {
  const all = readFileSync(file, 'latin1').split('\n');
  const header = all[0]!.split(',');
  order = LEDGER_FIELDS.map((f) => header.indexOf(f));
  const lines = all.slice(1).filter(Boolean);
  return limit === undefined ? lines : lines.slice(0, limit);
};
const batches = (lines: string[]): string[] => {
  const out: string[] = [];
  let cur: string[] = [];
  let chars = 0;
  lines.forEach((l, i) => {
    const cells = l.split(',');
    const line = `${order.map((k) => cells[k]).join('\t')}\t\t${i + 1}`;
    cur.push(line);
    chars += line.length + 1;
    if (chars >= 60 * 1024) {
      out.push(cur.join('\n') + '\n');
      cur = [];
      chars = 0;
    }
  });
  if (cur.length) out.push(cur.join('\n') + '\n');
  return out;
};
const limit = values.rows === undefined ? undefined : Number(values.rows);
const dir = mkdtempSync(join(tmpdir(), 'nps-bench-writer-'));
try {
  openService({ dataDir: dir }).close();
  const open = () => {
    const db = new Database(join(dir, 'nps.sqlite'));
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = -16384');
    db.pragma('temp_store = FILE');
    db.pragma(`threads = ${values.threads}`);
    db.pragma('wal_autocheckpoint = 0');
    return db;
  };
  const run = (file: string, label: string) => {
    const texts = batches(readLines(file, limit));
    const rows = texts.reduce((n, t) => n + t.split('\n').length - 1, 0);
    const db = open();
    const w = new LedgerWriter(db, { importId: `bench-${label}`, now: Date.now(), expectedRows: rows, idColumn: 'transaction_id' });
    const t0 = performance.now();
    w.begin();
    let addMs = 0;
    for (const t of texts) {
      const a = performance.now();
      w.add(t);
      addMs += performance.now() - a;
    }
    const t1 = performance.now();
    const stats = w.finish();
    const t2 = performance.now();
    w.commit(benchImportRecord(`bench-${label}`, label, rows, stats));
    const t3 = performance.now();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    console.log(
      `${label}: ${rows} rows, added ${stats.added}; add ${s(addMs)}, finish (indexes) ${s(t2 - t1)}, commit ${s(t3 - t2)}; writer total ${s(t3 - t0)}`,
    );
  };
  if (values.base) run(values.base, 'base');
  run(values.csv!, 'load');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
