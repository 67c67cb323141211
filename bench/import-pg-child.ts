import Database from 'better-sqlite3';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { cpus } from 'node:os';
import { basename } from 'node:path';
import type { LedgerStore, WriterStats } from '../src/main/service/db/ledger-writer';
import { postgresLedgerStore } from '../src/main/service/db/ledger-writer-pg';
import { openPostgres } from '../src/main/service/db/postgres';
import { sqliteLedgerStore } from '../src/main/service/ledger/import-repository';
import { benchImportRecord } from './import-record';

/*
 * One writer of bench:import-pg (bench/import-pg.ts) in a process of its own: tsx bench/import-pg-child.ts
 * sqlite|postgres LINES_FILE TARGET (the SQLite file, or the PostgreSQL URL). Feeds the writer the
 * lines file, whole lines about 60 KiB a batch, timing the writer apart from the reading, and
 * prints its figures as JSON on the last line.
 */

const BATCH_CHARS = 60 * 1024;

interface ChildResult {
  rows: number;
  stats: Omit<WriterStats, 'updates' | 'repeats'>;
  writeMs: number;
  readMs: number;
  vmHwm: number | null;
}

function vmHwm(): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Feed a writer the lines file (whole lines, about BATCH_CHARS a batch), timing the writer apart from the reading. */
async function run(kind: string, linesFile: string, target: string): Promise<ChildResult> {
  let store: LedgerStore;
  let close: () => Promise<void> | void;
  if (kind === 'sqlite') {
    // The import thread's settings (engine/import-worker.ts).
    const db = new Database(target);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('cache_size = -16384');
    db.pragma('temp_store = FILE');
    db.pragma(`threads = ${cpus().length > 1 ? 1 : 0}`);
    db.pragma('wal_autocheckpoint = 0');
    store = sqliteLedgerStore(db);
    close = () => void db.close();
  } else {
    const pgDb = await openPostgres(target);
    store = postgresLedgerStore(pgDb.$client);
    close = () => pgDb.$client.end();
  }
  // The first line, `# rows`: read alone (the file is hundreds of MB).
  const head = Buffer.alloc(40);
  const headFd = openSync(linesFile, 'r');
  readSync(headFd, head, 0, head.length, 0);
  closeSync(headFd);
  const rows = Number(/^# (\d+)/.exec(head.toString('latin1'))![1]);
  // One import per file: a second file into the same store is an import of its own.
  const importId = `bench-${kind}-${basename(linesFile)}`;
  const w = store.importWriter({ importId, now: Date.now(), expectedRows: rows, idColumn: 'transaction_id' });
  let readMs = 0;
  const t0 = performance.now();
  await w.begin();
  const fd = openSync(linesFile, 'r');
  const buf = Buffer.alloc(4 << 20);
  let rest = '';
  let first = true;
  for (;;) {
    const r0 = performance.now();
    const n = readSync(fd, buf, 0, buf.length, null);
    let text = rest + buf.toString('latin1', 0, n);
    if (first) {
      text = text.slice(text.indexOf('\n') + 1);
      first = false;
    }
    const cut = n === 0 ? text.length : text.lastIndexOf('\n') + 1;
    rest = text.slice(cut);
    const pieces: string[] = [];
    for (let at = 0; at < cut;) {
      const end = Math.min(cut, text.indexOf('\n', Math.min(at + BATCH_CHARS, cut - 1)) + 1 || cut);
      pieces.push(text.slice(at, end));
      at = end;
    }
    readMs += performance.now() - r0;
    for (const p of pieces) await w.add(p);
    if (n === 0) break;
  }
  closeSync(fd);
  const stats = await w.finish();
  await w.commit(benchImportRecord(importId, 'bench.csv', rows, stats));
  const writeMs = performance.now() - t0 - readMs;
  await close();
  const { updates: _u, repeats: _r, ...counts } = stats;
  return { rows, stats: counts, writeMs, readMs, vmHwm: vmHwm() };
}

const [kind, linesFile, target] = process.argv.slice(2) as [string, string, string];
run(kind, linesFile, target).then(
  (r) => console.log(JSON.stringify(r)),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
