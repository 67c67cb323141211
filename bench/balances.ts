import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DB_FILE, openService } from '../src/main/service/index';
import { periodBalances } from '../src/main/service/ledger/balances';
import { generateLedger } from './generate-ledger';

/*
 * npx tsx bench/balances.ts [-- --rows 1000000 --seed 1 --repeat 3 --store DIR]
 * Generates a native-format ledger (20 wallets), imports it through ledger-import, then times the
 * balance handlers on it: every wallet's balances at a date, every wallet's period, one wallet's
 * balances and period, one statement page, a balance check, and the report's periodBalances.
 * Each is run `repeat` times; the best and the worst are printed.
 */

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    repeat: { type: 'string', default: '3' },
    /** Keep the store in this folder, and use it again when it is there (a million rows take minutes to make). */
    store: { type: 'string' },
  },
});
const rows = Number(values.rows);
const repeat = Number(values.repeat);
const meta = { actor: 'cli' as const };

const dir = values.store ?? mkdtempSync(join(tmpdir(), 'nps-bench-balances-'));
try {
  const reuse = values.store !== undefined && existsSync(join(dir, 'data', DB_FILE));
  const service = openService({ dataDir: join(dir, 'data') });
  if (!reuse) {
    let t = performance.now();
    const csv = join(dir, 'ledger.csv');
    await generateLedger(csv, rows, { seed: Number(values.seed), wallets: 20 });
    console.log(`generated ${rows.toLocaleString('en-US')} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    t = performance.now();
    const report = await service.invoke('ledger-import', { source: { path: csv } }, meta);
    console.log(`imported ${report.added.toLocaleString('en-US')} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    rmSync(csv);
  }

  const db = service.ctx.db;
  const span = db.$client
    .prepare(
      'SELECT min(coalesce(completed_at, confirmed_at, created_at)) AS lo, max(coalesce(completed_at, confirmed_at, created_at)) AS hi FROM transactions',
    )
    .get() as { lo: number; hi: number };
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const mid = day((span.lo + span.hi) / 2);
  const from = day(span.lo + (span.hi - span.lo) / 4);
  const count = db.$client.prepare('SELECT count(*) FROM transactions').pluck().get() as number;
  const wallet = db.$client.prepare('SELECT wallet_id FROM wallets ORDER BY wallet_id LIMIT 1').pluck().get() as string;
  const token = (
    db.$client
      .prepare('SELECT token_id FROM transactions WHERE wallet_id = ? GROUP BY token_id ORDER BY count(*) DESC LIMIT 1')
      .get(wallet) as {
      token_id: string;
    }
  ).token_id;
  const walletRows = db.$client.prepare('SELECT count(*) FROM transactions WHERE wallet_id = ?').pluck().get(wallet) as number;
  console.log(
    `${count.toLocaleString('en-US')} records from ${day(span.lo)} to ${day(span.hi)}; period ${from} to ${mid}; one wallet: ${walletRows.toLocaleString('en-US')} rows, ${token}`,
  );

  /** Wall time, and this process's CPU time (what the work costs, apart from waiting for a busy machine's cores). */
  const time = async (label: string, fn: () => unknown) => {
    const runs: { wall: number; cpu: number }[] = [];
    let out: unknown;
    for (let i = 0; i < repeat; i++) {
      const s = performance.now();
      const c = process.cpuUsage();
      out = await fn();
      const used = process.cpuUsage(c);
      runs.push({ wall: performance.now() - s, cpu: (used.user + used.system) / 1000 });
    }
    runs.sort((a, b) => a.wall - b.wall);
    const f = (n: number) => n.toFixed(0).padStart(6);
    console.log(`${label.padEnd(48)} wall best ${f(runs[0]!.wall)} ms, worst ${f(runs.at(-1)!.wall)} ms; CPU ${f(runs[0]!.cpu)} ms`);
    return out;
  };
  const all = (await time('balances-at, every wallet', () => service.invoke('balances-at', { at: mid }, meta))) as { rows: unknown[] };
  console.log(`  ${all.rows.length} wallet/token rows`);
  await time('balances-period, every wallet', () => service.invoke('balances-period', { from, to: mid }, meta));
  await time('balances-at, one wallet', () => service.invoke('balances-at', { wallet_id: wallet, at: mid }, meta));
  await time('balances-period, one wallet', () => service.invoke('balances-period', { wallet_id: wallet, from, to: mid }, meta));
  const st = (await time('balance-movements, one wallet and token, page 1', () =>
    service.invoke('balance-movements', { wallet_id: wallet, token_id: token, from, to: mid, page_size: 100 }, meta),
  )) as { total: number };
  console.log(`  ${st.total.toLocaleString('en-US')} movements in the period`);
  await time('balance-check, one wallet and token', () =>
    service.invoke('balance-check', { wallet_id: wallet, token_id: token, at: mid, statement_balance: '0' }, meta),
  );
  await time('periodBalances (report), every wallet', () => periodBalances(db, null, Date.parse(from), Date.parse(mid)));
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  service.close();
} finally {
  if (values.store === undefined) rmSync(dir, { recursive: true, force: true });
}
