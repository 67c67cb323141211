import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DB_FILE, openService } from '../src/main/service/index';
import { generateLedger } from './generate-ledger';

/*
 * npm run bench:ledger-search -- [--rows 1000000] [--seed 1] [--repeat 5] [--store DIR]
 * The Ledger screen's search as the user types: a generated ledger (20 wallets) imported through
 * ledger-import, then the calls the screen makes for each search (the first page of 200 rows, newest
 * first, with the count) for a hash, a transaction ID and a request ID typed out 4, 8, 16 characters
 * at a time and whole, and a prefix nothing begins with. Each is run `repeat` times; the best and the
 * worst are printed, with the rows found. `--store` keeps the store to run again (a million rows
 * take minutes to make).
 */

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    repeat: { type: 'string', default: '5' },
    store: { type: 'string' },
  },
});
const rows = Number(values.rows);
const repeat = Number(values.repeat);
const meta = { actor: 'ui' as const };

const dir = values.store ?? mkdtempSync(join(tmpdir(), 'nps-bench-search-'));
try {
  const reuse = values.store !== undefined && existsSync(join(dir, 'data', DB_FILE));
  let t = performance.now();
  const service = openService({ dataDir: join(dir, 'data') });
  if (reuse) console.log(`store opened (and brought up to date) in ${((performance.now() - t) / 1000).toFixed(2)} s`);
  if (!reuse) {
    t = performance.now();
    const csv = join(dir, 'ledger.csv');
    await generateLedger(csv, rows, { seed: Number(values.seed), wallets: 20 });
    console.log(`generated ${rows.toLocaleString('en-US')} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    t = performance.now();
    const report = await service.invoke('ledger-import', { source: { path: csv } }, { actor: 'cli' });
    console.log(`imported ${report.added.toLocaleString('en-US')} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    rmSync(csv);
  }
  const db = service.ctx.db.$client;
  const count = db.prepare('SELECT count(*) FROM transactions').pluck().get() as number;
  // Values from the middle of the ledger, as a user would paste them.
  const pick = (column: string) =>
    db
      .prepare(`SELECT ${column} FROM transactions WHERE rowid >= ? AND ${column} IS NOT NULL AND ${column} <> '' LIMIT 1`)
      .pluck()
      .get(count >> 1) as string;
  const hash = pick('hash');
  const id = pick('transaction_id');
  const request = pick('request_id');
  const typed = (v: string) => [4, 8, 16].filter((n) => n < v.length).map((n) => v.slice(0, n + (v.startsWith('0x') ? 2 : 0)));
  const searches = [...typed(hash), hash, ...typed(id), id, ...typed(request), request, '0xfffffffe'];
  console.log(
    `${count.toLocaleString('en-US')} records; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${repeat} runs each of the first page (200 rows, newest first) and its count`,
  );
  for (const search of searches) {
    const times: number[] = [];
    let found = 0;
    for (let i = 0; i < repeat; i++) {
      const t0 = performance.now();
      const page = await service.invoke('transactions-list', { search, page: 1, page_size: 200 }, meta);
      times.push(performance.now() - t0);
      found = page.total;
    }
    times.sort((a, b) => a - b);
    console.log(
      `  ${search.padEnd(68)} ${String(found).padStart(7)} found  best ${times[0]!.toFixed(1)} ms, worst ${times.at(-1)!.toFixed(1)} ms`,
    );
  }
  service.close();
} finally {
  if (values.store === undefined) rmSync(dir, { recursive: true, force: true });
}
