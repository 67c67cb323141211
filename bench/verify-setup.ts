import Database from 'better-sqlite3';
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TransactionRecord } from '../src/shared/ledger';
import { RECORD_COLUMNS, recordOfRow } from '../src/main/service/db/record-sql';
import { DB_FILE, openService } from '../src/main/service/index';
import { generateLedger, prng } from './generate-ledger';

/*
 * What bench:verify and bench:verify-floor both start from: a store holding a generated ledger of
 * `rows` records (imported through the ledger-import handler) and one API key, checkpointed and
 * closed; and the request bodies, each of `items` claims, made from records sampled from it.
 * Each measurement runs on a copy of that store (`copyStore`), so every one starts from the same
 * records and the same empty queue of tickets.
 */

export interface VerifySetupOptions {
  rows: number;
  requests: number;
  items: number;
  warmup: number;
  seed: number;
  /** Keep the store (and its key) in this folder and start from it again next time (generating and importing 1M rows takes minutes). */
  cache?: string;
}

export type Kind = 'match' | 'mismatch' | 'missing';

export interface VerifySetup {
  /** The store to copy (closed, its write-ahead log folded in). */
  store: string;
  apiKey: string;
  apiSecret: string;
  /** The timed requests' bodies, and the warm-up's (claims of other records). */
  bodies: string[];
  warmupBodies: string[];
  kinds: Record<Kind, number>;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** One claim as request JSON text: amounts as bare JSON numbers or as strings, both kinds exercised. */
function claimJson(r: TransactionRecord, kind: Kind, rand: () => number): string {
  const item: Record<string, unknown> = {};
  const by = rand();
  if (kind === 'missing') {
    item.transaction_id = `ffffffff-${Math.floor(rand() * 1e4)
      .toString()
      .padStart(4, '0')}-4000-8000-${Math.floor(rand() * 1e12)
      .toString()
      .padStart(12, '0')}`;
  } else if (by < 0.4 || (r.hash === '' && r.request_id === '')) item.transaction_id = r.transaction_id;
  else if (by < 0.75 && r.hash !== '') {
    item.hash = r.hash;
    item.chain_id = r.chain_id;
  } else if (r.request_id !== '' && r.type === 'Withdrawal') item.request_id = r.request_id;
  else item.transaction_id = r.transaction_id;
  item.token_id = r.token_id;
  item.type = rand() < 0.5 ? r.type : r.type.toUpperCase();
  item.status = r.status;
  if (r.to !== '') item.to = r.to.startsWith('0x') && rand() < 0.5 ? r.to.toLowerCase() : r.to;
  let amount = r.amount;
  if (kind === 'mismatch') amount = (Number(r.amount) + 1).toFixed(6);
  item.amount = amount;
  if (r.fee !== '') item.fee = r.fee;
  if (r.created_at !== null)
    item.time = Math.floor(r.created_at / 1000) + (kind === 'mismatch' && rand() < 0.5 ? 3600 : Math.floor(rand() * 11) - 5);
  const text = JSON.stringify(item);
  return rand() < 0.5 ? text.replace(/"amount":"([0-9.]+)"/, '"amount":$1') : text;
}

/** The store and the bodies (see the top of this file); `dir` is the run's own folder. */
export async function setUpVerify(dir: string, o: VerifySetupOptions): Promise<VerifySetup> {
  const cacheDir = o.cache === undefined ? undefined : join(o.cache, `verify-${o.rows}-${o.seed}`);
  const store = join(cacheDir ?? dir, 'base', DB_FILE);
  const keyFile = join(cacheDir ?? dir, 'key.json');
  if (!existsSync(store) || !existsSync(keyFile)) {
    rmSync(join(cacheDir ?? dir, 'base'), { recursive: true, force: true });
    let t = performance.now();
    const csv = join(dir, 'ledger.csv');
    const gen = await generateLedger(csv, o.rows, { seed: o.seed, wallets: 20 });
    console.log(
      `generated ${fmt(o.rows)} ledger rows (${(gen.bytes / 1024 / 1024).toFixed(1)} MB) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    const service = openService({ dataDir: join(cacheDir ?? dir, 'base') });
    t = performance.now();
    const report = await service.invoke('ledger-import', { source: { path: csv } }, { actor: 'cli' });
    if (report.added !== o.rows) throw new Error(`import added ${report.added} of ${o.rows} rows`);
    console.log(`imported through ledger-import in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const key = await service.invoke('keys-create', { label: 'bench', wallets: null }, { actor: 'cli' });
    // The import leaves a large write-ahead log; fold it into the database, as an idle service
    // would, so the first requests do not pay for the import.
    service.ctx.db.$client.pragma('wal_checkpoint(TRUNCATE)');
    service.close();
    rmSync(csv, { force: true });
    if (cacheDir !== undefined) mkdirSync(cacheDir, { recursive: true });
    writeFileSync(keyFile, JSON.stringify({ api_key: key.api_key, api_secret: key.api_secret }));
  } else console.log(`the store of ${fmt(o.rows)} rows from ${cacheDir}`);
  const key = JSON.parse(readFileSync(keyFile, 'utf8')) as { api_key: string; api_secret: string };

  // Sample the claims' records straight from the store: a benchmark harness, not service code.
  const sqlite = new Database(store, { readonly: true });
  const rand = prng(o.seed + 1);
  const sampleRecords = (n: number) =>
    sqlite
      .prepare(`SELECT ${RECORD_COLUMNS} FROM transactions t WHERE t.rowid IN (SELECT value FROM json_each(?))`)
      .raw(true)
      .all(JSON.stringify(Array.from({ length: n }, () => 1 + Math.floor(rand() * o.rows))))
      .map((row) => recordOfRow(row as unknown[]));
  const kinds: Record<Kind, number> = { match: 0, mismatch: 0, missing: 0 };
  const makeBodies = (count: number, sample: TransactionRecord[], tally: boolean) =>
    Array.from({ length: count }, (_, q) => {
      const items: string[] = [];
      for (let i = 0; i < o.items; i++) {
        const r = sample[(q * o.items + i) % sample.length]!;
        const x = rand();
        const kind: Kind = x < 0.7 ? 'match' : x < 0.9 ? 'mismatch' : 'missing';
        if (tally) kinds[kind]++;
        items.push(claimJson(r, kind, rand));
      }
      return `{"txs":[${items.join(',')}]}`;
    });
  const bodies = makeBodies(o.requests, sampleRecords(o.requests * o.items), true);
  // Warm-up claims come after, from records of their own: the timed claims are the same with or without them.
  const warmupBodies = o.warmup > 0 ? makeBodies(o.warmup, sampleRecords(o.warmup * o.items), false) : [];
  sqlite.close();
  console.log(
    `claims: ${fmt(kinds.match)} to match, ${fmt(kinds.mismatch)} mismatching, ${fmt(kinds.missing)} not in the ledger; body ~${(bodies[0]!.length / 1024).toFixed(0)} KB`,
  );
  return { store, apiKey: key.api_key, apiSecret: key.api_secret, bodies, warmupBodies, kinds };
}

/**
 * A copy of the store in `dataDir`, flushed to the disk: the disk is not still writing it while a
 * measurement runs (its commits would queue behind that).
 */
export function copyStore(setup: VerifySetup, dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, DB_FILE);
  copyFileSync(setup.store, file);
  const fd = openSync(file, 'r+');
  fsyncSync(fd);
  closeSync(fd);
  return file;
}
