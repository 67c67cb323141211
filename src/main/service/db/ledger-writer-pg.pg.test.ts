import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateLedger } from '../../../../bench/generate-ledger';
import { LEDGER_FIELDS, type ImportReport } from '../../../shared/ledger';
import type { CallMeta } from '../context';
import { StoreRowWriter } from '../engine/index';
import { good, text } from '../ledger/native-rows.test-support';
import { tempService } from '../test-support';
import { keyOf, recordsWhereInPg, storedRecordsPg } from './ledger-pg';
import { STORED_RECORD_FIELDS, VALUE_ENCODERS } from './ledger-sql';
import { LedgerLineError, PostgresLedgerWriter, postgresLedgerStore } from './ledger-writer-pg';
import { openPostgres, type PgDb } from './postgres';
import { startPostgres, type TestPostgres } from './postgres.test-support';

/*
 * The import's write on PostgreSQL against the SQLite writer it must match: the same files, read
 * by the same import (the service's own `ledger-import`), written once into the service's SQLite
 * store and once into a PostgreSQL store, give the same report, the same records in the same
 * order, the same imports, rejections, wallets and undo data. Then a failed import leaves the
 * PostgreSQL store as it was: a line the writer refuses, and the connection killed midway.
 */

const EXPORTS = join(__dirname, '../../../../test/fixtures/exports');
const meta: CallMeta = { actor: 'cli' };
const NOW = 1767225600000;
const WALLET = '5b1d2c3e-4f50-4a61-8b72-9c8d7e6f5a41';
const NEW_WALLET = '0e0e0e0e-0000-4000-8000-000000000001';
const REPEAT_WALLET = '0e0e0e0e-0000-4000-8000-000000000002';

let server: TestPostgres;
let databases = 0;
const opened: PgDb[] = [];
const services: ReturnType<typeof tempService>[] = [];

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  for (const db of opened) await db.$client.end();
  await server?.stop();
});
afterEach(() => {
  for (const s of services.splice(0)) s.dispose();
});

/** A fresh PostgreSQL store with the catalogue's chains (an import's address names one). */
async function freshPg(from: ReturnType<typeof tempService>): Promise<PgDb> {
  const db = await openPostgres(await server.createDatabase(`ledger_${++databases}`));
  opened.push(db);
  const chains = from.ctx.db.$client.prepare('SELECT * FROM chains').all() as Record<string, unknown>[];
  for (const c of chains) {
    const cols = Object.keys(c);
    const flags = new Set(['enabled', 'is_testnet', 'user_modified']);
    await db.$client.query(
      `INSERT INTO chains (${cols.map((k) => `"${k}"`).join(', ')}) VALUES (${cols.map((_k, i) => `$${i + 1}`).join(', ')})`,
      cols.map((k) => (flags.has(k) ? c[k] === 1 : c[k])),
    );
  }
  return db;
}

/** Two services that read files alike: one writes its imports into its SQLite store, the other into a PostgreSQL store. */
async function twoStores(pgOptions: { rebuildMinRows?: number } = {}) {
  const sqlite = tempService({ now: () => NOW });
  const reader = tempService({ now: () => NOW });
  services.push(sqlite, reader);
  const pgDb = await freshPg(reader);
  vi.spyOn(reader.ctx.engine, 'importWriter').mockImplementation((opts) =>
    Promise.resolve(new StoreRowWriter(postgresLedgerStore(pgDb.$client).importWriter({ ...opts, ...pgOptions }))),
  );
  const run = async (input: Record<string, unknown>): Promise<[ImportReport, ImportReport]> => {
    // The SQLite service would answer a file read again from its earlier import: here its writer must run.
    sqlite.ctx.db.$client.exec('UPDATE imports SET read_fingerprint = NULL');
    const a = await sqlite.invoke('ledger-import', input, meta);
    const b = await reader.invoke('ledger-import', input, meta);
    return [a, b];
  };
  return { sqlite, pgDb, run };
}

/** A report without what differs between any two imports (its id and duration). */
const same = (r: ImportReport) => ({ ...r, import_id: r.import_id === null ? null : 'id', duration_ms: 0 });

/** Everything an import writes, import ids as their place in the history (they differ between the two runs). */
interface Written {
  imports: unknown[];
  rejections: unknown[];
  records: unknown[];
  replaced: unknown[];
  wallets: unknown[];
  addresses: unknown[];
}

function normalize(ids: string[], w: Omit<Written, 'imports'> & { imports: { import_id: string }[] }): Written {
  const place = (id: unknown) => (typeof id === 'string' && ids.includes(id) ? `import ${ids.indexOf(id) + 1}` : id);
  const swap = (row: unknown): unknown =>
    Object.fromEntries(
      Object.entries(row as Record<string, unknown>).map(([k, v]) => [
        k,
        k === 'previous' ? swap(JSON.parse(v as string)) : k.endsWith('import_id') ? place(v) : v,
      ]),
    );
  return {
    imports: w.imports.map(swap),
    rejections: w.rejections.map(swap),
    records: w.records.map(swap),
    replaced: w.replaced.map(swap),
    wallets: w.wallets,
    addresses: w.addresses,
  };
}

const IMPORT_COLUMNS =
  'import_id, file_name, file_sha256, file_size, format, preset, rows_total, added, updated, unchanged, rejected, started_at, finished_at, read_fingerprint, wallet_id, read_as';
const RECORD_COLUMNS = STORED_RECORD_FIELDS.map((f) => `"${f}"`).join(', ');

function writtenSqlite(s: ReturnType<typeof tempService>): Written {
  const db = s.ctx.db.$client;
  const imports = db.prepare(`SELECT ${IMPORT_COLUMNS} FROM imports ORDER BY rowid`).all() as { import_id: string }[];
  return normalize(
    imports.map((i) => i.import_id),
    {
      imports: imports.map((i) => ({ ...i, read_fingerprint: null })),
      rejections: db.prepare('SELECT import_id, row_number, "column", reason, value FROM import_rejections ORDER BY id').all(),
      records: db.prepare(`SELECT rowid, ${RECORD_COLUMNS} FROM transactions ORDER BY rowid`).all(),
      replaced: db
        .prepare('SELECT import_id, transaction_id, previous, previous_import_id FROM import_replaced ORDER BY import_id, transaction_id')
        .all(),
      wallets: db.prepare('SELECT wallet_id, name, notes, created_at, updated_at FROM wallets ORDER BY wallet_id').all(),
      addresses: db
        .prepare('SELECT wallet_id, chain_id, address, label, created_at FROM wallet_addresses ORDER BY wallet_id, address')
        .all(),
    },
  );
}

async function writtenPg(db: PgDb): Promise<Written> {
  const q = async (sql: string) => (await db.$client.query(sql)).rows as Record<string, unknown>[];
  const imports = (await q(`SELECT ${IMPORT_COLUMNS} FROM imports ORDER BY rowid`)) as { import_id: string }[];
  const ids = imports.map((i) => i.import_id);
  const replaced = await q('SELECT import_id, transaction_id, previous, previous_import_id FROM import_replaced');
  // SQLite's order of the import ids as the SQLite run made them is unknowable here: sort after naming them by place.
  return normalize(ids, {
    imports: imports.map((i) => ({ ...i, read_fingerprint: null })),
    rejections: await q('SELECT import_id, row_number, "column", reason, value FROM import_rejections ORDER BY id'),
    records: (await storedRecordsPg(db.$client)).map(({ rowid, record }) => ({ rowid, ...record })),
    replaced,
    wallets: await q('SELECT wallet_id, name, notes, created_at, updated_at FROM wallets ORDER BY wallet_id'),
    addresses: await q('SELECT wallet_id, chain_id, address, label, created_at FROM wallet_addresses ORDER BY wallet_id, address'),
  });
}

const byPlace = (w: Written): Written => ({
  ...w,
  replaced: [...w.replaced].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
});

async function expectSameStores(s: ReturnType<typeof tempService>, db: PgDb): Promise<Written> {
  const a = byPlace(writtenSqlite(s));
  const b = byPlace(await writtenPg(db));
  expect(b).toEqual(a);
  return a;
}

describe('the same imports through the SQLite and the PostgreSQL writer', () => {
  it('real explorer exports (Etherscan, Tronscan) into an empty ledger, then again: the same reports, records, rejections and wallets', async () => {
    const { sqlite, pgDb, run } = await twoStores();
    const steps: Record<string, unknown>[] = [
      { source: { path: join(EXPORTS, 'etherscan-0xf98c-txlist.csv') }, wallet_id: WALLET, chain_id: 'ETH' },
      // ERC-20 transfers of tokens the catalogue lacks: rejected rows, recorded with the import.
      { source: { path: join(EXPORTS, 'etherscan-0xf98c-erc20.csv') }, wallet_id: WALLET, chain_id: 'ETH' },
      {
        source: { path: join(EXPORTS, 'tronscan-trc20-address-THPva-cold-head.csv') },
        wallet_id: 'c01dc01d-0000-4000-8000-000000000001',
        token_id: 'TRON_USDT',
        time_zone: 'UTC',
      },
      // The first file again: every row unchanged.
      { source: { path: join(EXPORTS, 'etherscan-0xf98c-txlist.csv') }, wallet_id: WALLET, chain_id: 'ETH' },
    ];
    const reports: ImportReport[] = [];
    for (const step of steps) {
      const [a, b] = await run(step);
      expect(same(b)).toEqual(same(a));
      reports.push(a);
    }
    expect(reports.map((r) => [r.added, r.updated, r.unchanged])).toEqual([
      [9, 0, 0],
      [0, 0, 0],
      [78, 0, 0],
      [0, 0, 9],
    ]);
    expect(reports[1]!.rejected).toBeGreaterThan(0);
    expect(reports[2]!.rejected).toBe(3);
    const written = await expectSameStores(sqlite, pgDb);
    expect(written.records).toHaveLength(87);
    expect(written.addresses.length).toBeGreaterThan(0);
  });

  it('a file repeating its own rows into an empty ledger: the first of each stays, the others rejected naming it', async () => {
    const { sqlite, pgDb, run } = await twoStores();
    const other = '0e0e0e0e-0000-4000-8000-000000000003';
    const source = text([
      good(1),
      good(2),
      good(1, { amount: '5' }),
      good(3),
      good(2),
      good(4, { wallet_id: other }),
      good(4, { wallet_id: other }),
      good(5),
    ]);
    const [a, b] = await run({ source });
    expect(same(b)).toEqual(same(a));
    expect(a).toMatchObject({ added: 5, rejected: 3 });
    expect(a.rejections.map((r) => [r.row_number, r.reason])).toEqual([
      [3, expect.stringMatching(/already appears on data row 1;/)],
      [5, expect.stringMatching(/already appears on data row 2;/)],
      [7, expect.stringMatching(/already appears on data row 6;/)],
    ]);
    const written = await expectSameStores(sqlite, pgDb);
    expect(written.records.map((r) => (r as { rowid: number }).rowid)).toEqual([1, 2, 4, 6, 8]);
  });

  it.each([
    ['its new rows added to the ledger', {}],
    ['the ledger loaded again with its new rows (as for many of them)', { rebuildMinRows: 1 }],
  ])(
    'a generated ledger into an empty store, a second file updating some records and repeating others within it, and the second file again: %s',
    async (_how, pgOptions) => {
      const { sqlite, pgDb, run } = await twoStores(pgOptions);
      const dir = sqlite.dataDir;
      const first = join(dir, 'first.csv');
      await generateLedger(first, 3000, { seed: 7 });
      const [header, ...lines] = readFileSync(first, 'utf8').trimEnd().split('\n');
      const cols = header!.split(',');
      const at = (f: string) => cols.indexOf(f);
      const edit = (line: string, changes: Record<string, string>) => {
        const cells = line.split(',');
        for (const [f, v] of Object.entries(changes)) cells[at(f)] = v;
        return cells.join(',');
      };
      const second = join(dir, 'second.csv');
      const fresh = await newRows(dir, 500);
      const secondLines = [
        // 100 records updated (amount, status, a fee), 200 unchanged.
        ...lines.slice(0, 100).map((l, i) => edit(l, { amount: `${1000 + i}.25`, status: 'Failed', fee: i % 2 ? '0.1' : '' })),
        ...lines.slice(100, 300),
        // 500 new rows (another seed's), one of them in a wallet the store does not hold.
        ...fresh.map((l, i) => (i === 3 ? edit(l, { wallet_id: NEW_WALLET }) : l)),
        // Repeats within the file: of an updated record, of an unchanged one, of a new row (the first of the file wins).
        edit(lines[0]!, { amount: '1' }),
        lines[150]!,
        edit(fresh[0]!, { amount: '2' }),
        // A repeat whose only row names a wallet: that wallet is not created.
        edit(lines[5]!, { wallet_id: REPEAT_WALLET }),
      ];
      writeFileSync(second, [header, ...secondLines].join('\n') + '\n');

      // A role the team gave the ledger to keeps it.
      await pgDb.$client.query('DO $$ BEGIN CREATE ROLE ledger_reader; EXCEPTION WHEN duplicate_object THEN NULL; END $$');
      await pgDb.$client.query('GRANT SELECT ON ledger_rows TO ledger_reader');
      const shape = await tableShape(pgDb);
      expect(JSON.stringify(shape)).toContain('ledger_reader');
      const [a1, b1] = await run({ source: { path: first } });
      expect(same(b1)).toEqual(same(a1));
      // The first import into the empty ledger loads a table of its own that takes the ledger's place: the same table.
      expect(await tableShape(pgDb)).toEqual(shape);
      expect(a1).toMatchObject({ added: 3000, rejected: 0 });
      const [a2, b2] = await run({ source: { path: second } });
      expect(same(b2)).toEqual(same(a2));
      expect(await tableShape(pgDb)).toEqual(shape);
      expect(a2).toMatchObject({ added: 500, updated: 100, unchanged: 200, rejected: 4 });
      expect(a2.rejections.map((r) => r.reason)).toEqual([
        expect.stringMatching(/already appears on data row 1;/),
        expect.stringMatching(/already appears on data row 151;/),
        expect.stringMatching(/already appears on data row 301;/),
        expect.stringMatching(/already appears on data row 6;/),
      ]);
      // The new rows' own wallets (another seed's) and the one only a new row names; not the repeat's.
      expect(a2.wallets_created).toContain(NEW_WALLET);
      expect(a2.wallets_created).not.toContain(REPEAT_WALLET);
      expect(a2.updates).toHaveLength(100);
      const [a3, b3] = await run({ source: { path: second } });
      expect(same(b3)).toEqual(same(a3));
      expect(a3).toMatchObject({ added: 0, updated: 0, unchanged: 800, rejected: 4 });

      const written = await expectSameStores(sqlite, pgDb);
      expect(written.replaced).toHaveLength(100);
      expect(written.records).toHaveLength(3500);

      // The verification's lookup reads the same records on PostgreSQL.
      const sample = written.records.slice(0, 5) as { transaction_id: string; hash: string; request_id: string | null }[];
      const byId = await recordsWhereInPg(
        pgDb.$client,
        'transaction_id',
        sample.map((r) => r.transaction_id),
      );
      const { recordsWhereIn } = await import('../reconcile/repository');
      const want = recordsWhereIn(
        sqlite.ctx.db,
        'transaction_id',
        sample.map((r) => r.transaction_id),
      );
      // In no order on either engine: by id, import ids aside (they differ between the two runs).
      const norm = (rs: { transaction_id: string; import_id: string | null }[]) =>
        rs.map((r) => ({ ...r, import_id: null })).sort((x, y) => x.transaction_id.localeCompare(y.transaction_id));
      expect(byId).toHaveLength(5);
      expect(norm(byId)).toEqual(norm(want));
      const hashes = written.records
        .map((r) => (r as { hash: string | null }).hash)
        .filter((h): h is string => h !== null)
        .slice(0, 5);
      expect(hashes).toHaveLength(5);
      expect(norm(await recordsWhereInPg(pgDb.$client, 'hash', hashes))).toEqual(norm(recordsWhereIn(sqlite.ctx.db, 'hash', hashes)));
    },
  );
});

/** ledger_rows as the server describes it: columns, identity and its sequence, indexes, grants. */
async function tableShape(db: PgDb): Promise<unknown> {
  const q = async (sql: string) => (await db.$client.query(sql)).rows;
  return {
    columns: await q(
      "SELECT column_name, data_type, is_nullable, column_default, is_identity, identity_generation, ordinal_position FROM information_schema.columns WHERE table_name = 'ledger_rows' ORDER BY ordinal_position",
    ),
    sequence: await q("SELECT pg_get_serial_sequence('ledger_rows', 'rowid') AS seq"),
    indexes: await q("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'ledger_rows' ORDER BY indexname"),
    grants: await q(
      "SELECT grantee, privilege_type FROM information_schema.role_table_grants WHERE table_name = 'ledger_rows' ORDER BY 1, 2",
    ),
  };
}

/** Rows of a ledger generated with another seed: new transaction ids. */
let seeds = 100;
async function newRows(dir: string, n: number): Promise<string[]> {
  const path = join(dir, `new-${++seeds}.csv`);
  await generateLedger(path, n, { seed: seeds });
  return readFileSync(path, 'utf8').trimEnd().split('\n').slice(1);
}

/** The writer's own lines for native rows: LEDGER_FIELDS, then movement, then the row number. */
function line(n: number, fields: Partial<Record<(typeof LEDGER_FIELDS)[number] | 'movement', string>> = {}): string {
  const defaults: Record<string, string> = {
    transaction_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    wallet_id: 'w1',
    type: 'Deposit',
    status: 'Completed',
    amount: `${n}.5`,
    chain_id: 'ETH',
    token_id: 'ETH_USDT',
    created_at: String(NOW + n),
  };
  const values = [...LEDGER_FIELDS, 'movement'].map((f) => fields[f as keyof typeof fields] ?? defaults[f] ?? '');
  return [...values, String(n)].join('\t');
}

const options = (importId: string) => ({ importId, now: NOW, expectedRows: 0, idColumn: 'transaction_id' });
const summaryOf = (importId: string, added: number) => ({
  summary: {
    import_id: importId,
    file_name: 'f.csv',
    file_sha256: '',
    file_size: 0,
    format: 'csv' as const,
    preset: 'native',
    rows_total: added,
    added,
    updated: 0,
    unchanged: 0,
    rejected: 0,
    started_at: NOW,
    finished_at: NOW,
    wallet_id: null,
    read_as: null,
  },
  rejections: [],
});

/** Every table an import writes, as the PostgreSQL store holds it. */
async function dumpPg(db: PgDb): Promise<string> {
  const tables = ['imports', 'import_rejections', 'import_replaced', 'wallets', 'wallet_addresses', 'ledger_names', 'ledger_rows'];
  const out: Record<string, unknown> = {};
  for (const t of tables) out[t] = (await db.$client.query(`SELECT * FROM ${t} ORDER BY 1, 2`)).rows;
  return JSON.stringify(out);
}

describe('a failed import on PostgreSQL leaves the store as it was', () => {
  async function storeWithOneImport(): Promise<PgDb> {
    const s = tempService();
    services.push(s);
    const db = await freshPg(s);
    const w = new PostgresLedgerWriter(db.$client, options('first'));
    await w.begin();
    await w.add(
      Array.from({ length: 50 }, (_, i) => line(i + 1))
        .map((l) => `${l}\n`)
        .join(''),
    );
    await w.finish();
    await w.commit(summaryOf('first', 50));
    return db;
  }

  it('a line the writer refuses (a time that is no integer): refused naming its row and field, nothing written', async () => {
    const db = await storeWithOneImport();
    const before = await dumpPg(db);
    const w = new PostgresLedgerWriter(db.$client, options('second'));
    await w.begin();
    // Updates and new rows and a new wallet before it, in the same import.
    await w.add(`${line(1, { amount: '9' })}\n${line(60)}\n${line(61, { wallet_id: 'w2' })}\n`);
    const err = await w.add(`${line(70, { created_at: '17.5' })}\n`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LedgerLineError);
    expect((err as Error).message).toBe('data row 70, created_at: "17.5" is no integer');
    await w.rollback();
    expect(await dumpPg(db)).toBe(before);
  });

  it('a row the store refuses when the first import into an empty ledger adds its rows (no wallet): nothing written', async () => {
    const s = tempService();
    services.push(s);
    const db = await freshPg(s);
    const before = await dumpPg(db);
    const w = new PostgresLedgerWriter(db.$client, options('first'));
    await w.begin();
    await w.add(`${line(1)}\n${line(2, { wallet_id: '' })}\n`);
    const err = await Promise.resolve(w.finish()).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/null value in column "wallet_no"/);
    await w.rollback();
    expect(await dumpPg(db)).toBe(before);
    expect((await db.$client.query("SELECT to_regclass('ledger_rows_load') AS t")).rows).toEqual([{ t: null }]);
  });

  it('a row the store refuses when the rows are merged (no wallet), after records were updated and rows added: nothing written', async () => {
    const db = await storeWithOneImport();
    const before = await dumpPg(db);
    const w = new PostgresLedgerWriter(db.$client, options('second'));
    await w.begin();
    await w.add(
      `${line(1, { amount: '9' })}\n${line(2, { status: 'Failed' })}\n${line(60)}\n${line(61, { wallet_id: 'w2' })}\n${line(62, { wallet_id: '' })}\n`,
    );
    const err = await Promise.resolve(w.finish()).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/wallet_no.*not-null|null value in column "wallet_no"/);
    await w.rollback();
    expect(await dumpPg(db)).toBe(before);
  });

  it('the connection killed midway (pg_terminate_backend from another connection): the import fails, the store is as it was', async () => {
    const db = await storeWithOneImport();
    const before = await dumpPg(db);
    const w = new PostgresLedgerWriter(db.$client, options('second'));
    await w.begin();
    const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => `${line(from + i, { amount: '7' })}\n`).join('');
    await w.add(rows(1, 100));
    const killer = new pg.Client({ connectionString: server.url(`ledger_${databases}`) });
    await killer.connect();
    try {
      const { rows: killed } = await killer.query<{ ok: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL`,
      );
      expect(killed).toEqual([{ ok: true }]);
    } finally {
      await killer.end();
    }
    const failed = await (async () => {
      for (let i = 0; i < 20; i++) await w.add(rows(200 + i * 100, 100));
      await w.finish();
    })().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    await w.rollback();
    expect(await dumpPg(db)).toBe(before);
    // The store takes the next import as if nothing had happened.
    const again = new PostgresLedgerWriter(db.$client, options('third'));
    await again.begin();
    await again.add(rows(1, 60));
    expect(await again.finish()).toMatchObject({ added: 10, updated: 50 });
    await again.rollback();
  });
});

describe('the encoding of keys on PostgreSQL', () => {
  it('sorts keys as SQLite sorts its untyped columns: places, then text byte by byte, then bytes', async () => {
    const s = tempService();
    services.push(s);
    const db = await freshPg(s);
    const values: ['transaction_id' | 'hash' | 'type', string][] = [
      ['type', 'Deposit'],
      ['type', 'Withdrawal'],
      ['type', 'odd'],
      ['type', 'Zebra'],
      ['transaction_id', '00000000-0000-4000-8000-000000000001'],
      ['transaction_id', 'ffffffff-0000-4000-8000-000000000001'],
      ['transaction_id', 'not-a-uuid'],
      ['transaction_id', 'Ärger'],
      ['transaction_id', ''],
      ['hash', `0x${'ab'.repeat(32)}`],
      ['hash', 'cd'.repeat(32)],
      ['hash', '00'.repeat(32)],
    ];
    const sqlite = s.ctx.db.$client;
    sqlite.exec('CREATE TEMP TABLE k (n INTEGER, v)');
    const insert = sqlite.prepare('INSERT INTO k VALUES (?, ?)');
    values.forEach(([f, v], n) => insert.run(n, VALUE_ENCODERS[f]!(v)));
    const sqliteOrder = sqlite.prepare('SELECT n FROM k ORDER BY v, n').pluck().all();
    const { rows } = await db.$client.query<{ n: number }>('SELECT n FROM unnest($1::bytea[]) WITH ORDINALITY AS k(v, n) ORDER BY v, n', [
      values.map(([f, v]) => keyOf(f, v)),
    ]);
    expect(rows.map((r) => r.n - 1)).toEqual(sqliteOrder);
  });
});
