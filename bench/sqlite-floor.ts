import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { TronWeb } from 'tronweb';
import { LEDGER_FIELDS } from '../src/shared/ledger';
import { openService } from '../src/main/service/index';
import { generateLedger } from './generate-ledger';
import { floorMs, load, openFloorFile, storeFormat as storeFormat_, type Format, type Load } from './sqlite-floor-lib';

/*
 * npm run bench:sqlite-floor [-- --rows 1000000 --page-size 4096 --format store,dense --row-by-row --cache-mib 16]
 * What SQLite itself needs to hold a ledger of this size with the store's indexes, whatever reads
 * the file. Two ledgers of --rows rows (seeds 1 and 1001, as bench:import) are imported once
 * through the service; their records are then copied from JavaScript into a new file, one
 * prepared INSERT a row as the import's writer does, under the writer's settings:
 *
 *   fresh:        the first ledger into a table without indexes, then each index built;
 *   new rows:     the second ledger into that table of --rows: the indexes dropped, the rows
 *                 appended, the indexes built again over both (as a bulk import into a ledger it
 *                 brings at least an eighth of does); with --row-by-row also the other way, every
 *                 index kept and updated a row at a time.
 *
 * Each is the fastest an import can be on this machine before reading and checking a byte. After
 * each, the file's bytes a row (the write-ahead log checkpointed) and, per table and index, dbstat.
 *
 * --format store: the store's own table, `ledger_rows` (db/ledger-sql.ts: UUIDs and hex hashes as
 * their bytes, type and status as numbers, wallet, chain, token and import by a name's number;
 * addresses and amounts as text), its rows copied as stored.
 * --format dense: the same records in the densest encoding the fields allow, to show what is left:
 * as the store, and EVM and TRON addresses as their 20 and 21 bytes; the same six indexes over the
 * same columns. Nothing reads this format back: it is a measurement, not a design.
 */

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    'page-size': { type: 'string', default: '4096' },
    format: { type: 'string', default: 'store,dense' },
    'row-by-row': { type: 'boolean', default: false },
    /** The page cache of the copy, MiB (16, as the import's writer); a larger one shows whether --row-by-row is bound by the disk. */
    'cache-mib': { type: 'string', default: '16' },
  },
});
const rows = Number(values.rows);
const pageSize = Number(values['page-size']);
const cacheMib = Number(values['cache-mib']);
const formats = values.format.split(',') as ('store' | 'dense')[];
for (const f of formats) if (f !== 'store' && f !== 'dense') throw new Error(`--format: unknown format "${f}" (store, dense)`);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const COLUMNS = [...LEDGER_FIELDS, 'import_id', 'updated_at'] as const;
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
const parts = (p: [string, number][], n: number) => p.map(([name, b]) => `${name.replace(/^transactions_/, '')} ${fmt(b / n)}`).join(', ');

const dir = mkdtempSync(join(tmpdir(), 'nps-bench-floor-'));
try {
  const csvA = join(dir, 'a.csv');
  const csvB = join(dir, 'b.csv');
  const [genA] = await Promise.all([
    generateLedger(csvA, rows, { seed: 1, wallets: 20 }),
    generateLedger(csvB, rows, { seed: 1001, wallets: 20 }),
  ]);
  const service = openService({ dataDir: join(dir, 'data') });
  for (const csv of [csvA, csvB]) {
    const report = await service.invoke('ledger-import', { source: { path: csv } }, { actor: 'cli' });
    if (report.added !== rows) throw new Error(`import of ${csv} added ${report.added} of ${rows} rows`);
  }
  const source = service.ctx.db.$client.name;
  service.close();
  const storeFormat = storeFormat_(source);

  console.log(`${fmt(rows)} rows a ledger; the CSV ${fmt(genA.bytes / rows)} B a row; ${pageSize}-byte pages`);
  for (const name of formats) {
    const format = name === 'store' ? storeFormat : denseFormat();
    const file = join(dir, `floor-${name}.sqlite`);
    const db = openFloorFile(file, pageSize, cacheMib);
    db.exec(format.table);
    const fresh = load(db, source, format, 0, rows, true);
    const freshBytes = bytesOf(db, file);
    const added = load(db, source, format, rows, rows, !values['row-by-row']);
    const version = db.prepare('SELECT sqlite_version()').pluck().get() as string;
    const twoBytes = bytesOf(db, file);
    db.close();

    console.log(`\n== ${name} format (SQLite ${version})`);
    report('fresh', fresh);
    console.log(`  store after it: ${fmt(freshBytes.total / rows)} B a row (${mb(freshBytes.total)}): ${parts(freshBytes.parts, rows)}`);
    report(values['row-by-row'] ? 'new rows, every index kept' : 'new rows, indexes built again over both', added);
    console.log(`  store after it: ${fmt(twoBytes.total / (2 * rows))} B a row (${mb(twoBytes.total)})`);
    if (values['row-by-row']) {
      // The other way for the new rows, in a file of its own.
      const file2 = join(dir, `floor-${name}-rebuild.sqlite`);
      const db2 = openFloorFile(file2, pageSize, cacheMib);
      db2.exec(format.table);
      load(db2, source, format, 0, rows, true);
      report('new rows, indexes built again over both', load(db2, source, format, rows, rows, true));
      db2.close();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function report(what: string, l: Load): void {
  const indexMs = l.builds.reduce((n, [, ms]) => n + ms, 0);
  console.log(`${what}: insert ${s(l.insertMs)}${l.builds.length ? `, build the ${l.builds.length} indexes ${s(indexMs)}` : ''}`);
  for (const [index, ms] of l.builds) console.log(`    build ${index}: ${s(ms)}`);
  console.log(`  commit (no checkpoint) ${s(l.commitMs)}; checkpoint ${s(l.checkpointMs)}`);
  console.log(`  floor (insert, then the indexes): ${s(floorMs(l))} = at most ${fmt((rows / floorMs(l)) * 1000)} rows/s`);
}

function bytesOf(db: Database.Database, file: string): { total: number; parts: [string, number][] } {
  const parts = db.prepare('SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC').raw(true).all() as [string, number][];
  return { total: statSync(file).size, parts: parts.filter(([, b]) => b > 65536) };
}

/** The densest encoding of a record's fields (see the head of this file), in the order of `columns`. */
function denseFormat(): Format {
  const refs = new Map<string, Map<unknown, number>>();
  const ref = (kind: string) => (v: unknown) => {
    let m = refs.get(kind);
    if (!m) refs.set(kind, (m = new Map()));
    let n = m.get(v);
    if (n === undefined) m.set(v, (n = m.size));
    return n;
  };
  const uuid = (v: unknown) =>
    typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)
      ? Buffer.from(v.replaceAll('-', ''), 'hex')
      : v;
  const hash = (v: unknown) => (typeof v === 'string' && /^(0x)?[0-9a-f]{64}$/i.test(v) ? Buffer.from(v.replace(/^0x/, ''), 'hex') : v);
  const address = (v: unknown) => {
    if (typeof v !== 'string') return v;
    if (/^0x[0-9a-f]{40}$/i.test(v)) return Buffer.from(v.slice(2), 'hex');
    if (/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(v)) return Buffer.from(TronWeb.address.toHex(v), 'hex');
    return v;
  };
  /** Columns that become a small integer (a reference to a table of their values), under their dense names. */
  const REFS: Partial<Record<(typeof COLUMNS)[number], string>> = {
    wallet_id: 'wallet',
    type: 'type',
    status: 'status',
    chain_id: 'chain',
    token_id: 'token',
    import_id: 'import',
  };
  const columns = COLUMNS.map((c) => REFS[c] ?? c);
  const encoders = COLUMNS.map((c): ((v: unknown) => unknown) => {
    const kind = REFS[c];
    if (kind) return ref(kind);
    if (c === 'transaction_id') return uuid;
    if (c === 'hash') return hash;
    if (c === 'to') return address;
    return (v) => v;
  });
  const encode = (r: unknown[]) => r.map((v, i) => encoders[i]!(v));
  return {
    name: 'transactions',
    from: 'transactions',
    read: COLUMNS,
    table: `CREATE TABLE transactions (transaction_id BLOB NOT NULL, wallet INTEGER NOT NULL, type INTEGER NOT NULL,
      status INTEGER NOT NULL, amount TEXT NOT NULL, "to" BLOB, fee_ratio TEXT, fee_fixed TEXT, fee TEXT, er TEXT,
      amount_actual TEXT, hash BLOB, chain INTEGER NOT NULL, token INTEGER NOT NULL, created_at INTEGER,
      confirmed_at INTEGER, completed_at INTEGER, request_id TEXT, import INTEGER, updated_at INTEGER NOT NULL,
      movement INTEGER NOT NULL DEFAULT 0)`,
    indexes: [
      { name: 'transactions_chain_token_idx', sql: 'CREATE INDEX transactions_chain_token_idx ON transactions (chain, token)' },
      { name: 'transactions_created_idx', sql: 'CREATE INDEX transactions_created_idx ON transactions (created_at DESC)' },
      {
        name: 'transactions_hash_idx',
        // The store's key: the hash's first 8 bytes (its first 16 hex characters).
        sql: 'CREATE INDEX transactions_hash_idx ON transactions (substr(hash, 1, 8)) WHERE hash IS NOT NULL',
      },
      { name: 'transactions_id_idx', sql: 'CREATE UNIQUE INDEX transactions_id_idx ON transactions (transaction_id)' },
      {
        name: 'transactions_request_idx',
        sql: 'CREATE INDEX transactions_request_idx ON transactions (request_id) WHERE request_id IS NOT NULL',
      },
      {
        name: 'transactions_wallet_created_idx',
        sql: 'CREATE INDEX transactions_wallet_created_idx ON transactions (wallet, created_at)',
      },
    ],
    columns,
    encode,
  };
}
