import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LEDGER_FIELDS } from '../src/shared/ledger';
import { openService } from '../src/main/service/index';
import { generateLedger } from './generate-ledger';

/*
 * npm run bench:sqlite-floor [-- --rows 1000000 --page-size 4096]
 * What SQLite itself needs to hold a ledger of this size with the store's indexes, whatever reads
 * the file: the rows inserted from JavaScript into a table without indexes (one prepared INSERT
 * a row, as the import's writer does), then each index of `transactions` built after the load (as a
 * bulk import does), then the commit and the checkpoint. The sum of the first two is the fastest a
 * bulk import can be on this machine, before reading and checking a single byte.
 */

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '1000000' }, 'page-size': { type: 'string', default: '4096' } },
});
const rows = Number(values.rows);
const pageSize = Number(values['page-size']);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const dir = mkdtempSync(join(tmpdir(), 'nps-bench-floor-'));
try {
  const csv = join(dir, 'ledger.csv');
  await generateLedger(csv, rows, { seed: 1, wallets: 20 });
  const service = openService({ dataDir: join(dir, 'data') });
  const report = await service.invoke('ledger-import', { source: { path: csv } }, { actor: 'cli' });
  if (report.added !== rows) throw new Error(`import added ${report.added} of ${rows} rows`);
  const indexes = service.ctx.db.$client
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'transactions' AND sql IS NOT NULL ORDER BY name")
    .all() as { name: string; sql: string }[];
  const table = service.ctx.db.$client
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'transactions'")
    .pluck()
    .get() as string;
  const source = service.ctx.db.$client.name;
  service.close();

  const db = new Database(join(dir, 'floor.sqlite'));
  db.pragma(`page_size = ${pageSize}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // As the import's writer: a 16 MiB cache, the sorter spilling to files with one helper thread.
  db.pragma('cache_size = -16384');
  db.pragma('temp_store = FILE');
  db.pragma('threads = 1');
  db.pragma('wal_autocheckpoint = 0');
  // The wallets table is not copied: the reference to it is not what is measured.
  db.pragma('foreign_keys = OFF');
  db.exec(table);
  const columns = [...LEDGER_FIELDS, 'import_id', 'updated_at'];
  const insert = db.prepare(
    `INSERT INTO transactions (rowid, ${columns.map((c) => `"${c}"`).join(', ')}) VALUES (?${', ?'.repeat(columns.length)})`,
  );
  const src = new Database(source, { readonly: true });
  const read = src.prepare(`SELECT rowid, ${columns.map((c) => `"${c}"`).join(', ')} FROM transactions ORDER BY rowid`).raw(true);

  db.exec('BEGIN');
  let insertMs = 0;
  let batch: unknown[][] = [];
  const flush = () => {
    const t = performance.now();
    for (const r of batch) insert.run(r);
    insertMs += performance.now() - t;
    batch = [];
  };
  for (const r of read.iterate() as Iterable<unknown[]>) {
    batch.push(r);
    if (batch.length === 50_000) flush();
  }
  flush();
  src.close();

  const builds: [string, number][] = [];
  for (const index of indexes) builds.push([index.name, time(() => db.exec(index.sql))]);
  const commitMs = time(() => db.exec('COMMIT'));
  const checkpointMs = time(() => db.pragma('wal_checkpoint(TRUNCATE)'));
  const version = db.prepare('SELECT sqlite_version()').pluck().get() as string;
  db.close();

  const indexMs = builds.reduce((n, [, ms]) => n + ms, 0);
  console.log(`SQLite ${version}, ${fmt(rows)} rows, ${pageSize}-byte pages`);
  console.log(`insert into the table without indexes (from JavaScript): ${s(insertMs)}`);
  for (const [name, ms] of builds) console.log(`  build ${name}: ${s(ms)}`);
  console.log(`build the ${builds.length} indexes: ${s(indexMs)}`);
  console.log(`commit (no checkpoint): ${s(commitMs)}; checkpoint: ${s(checkpointMs)}`);
  console.log(
    `floor of a bulk import (insert, then the indexes): ${s(insertMs + indexMs)} = at most ${fmt((rows / (insertMs + indexMs)) * 1000)} rows/s`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}
