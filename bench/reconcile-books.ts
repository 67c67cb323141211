import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openService } from '../src/main/service/index';
import { generateLedger, prng } from './generate-ledger';

/*
 * npm run bench:reconcile-books [-- --rows 200000 --wallets 20 --seed 1 --keep --profile]
 * Two-way reconciliation of one wallet's whole ledger: generates a native ledger of `rows` over
 * `wallets` wallets, imports it, and writes that wallet's books from its records (native header,
 * claims by hash or transaction_id) with 2% of its records left out (not in books), 1% amounts
 * changed (mismatched), 1% claims of nothing (not in ledger) and 0.5% rows repeated (duplicates).
 * Then runs reconcile-books-run in the process and prints the time, the claims per second, the
 * groups and the peak RSS. The groups are checked against what was written. --profile writes a CPU
 * profile of the run alone (the main thread) into the temp folder.
 */

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '200000' },
    wallets: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
  },
});
const post = (session: Session, method: string) =>
  new Promise<unknown>((resolve, reject) => session.post(method, (err, res) => (err ? reject(err) : resolve(res))));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'nps-bench-books-'));
  const csv = join(dir, 'ledger.csv');
  const gen = await generateLedger(csv, Number(values.rows), { seed: Number(values.seed), wallets: Number(values.wallets) });
  const service = openService({ dataDir: join(dir, 'data') });
  try {
    const cli = { actor: 'cli' as const };
    await service.invoke('ledger-import', { source: { path: csv } }, cli);
    const wallet = gen.wallets[0]!;
    const records = service.ctx.db.$client
      .prepare(
        'SELECT transaction_id, hash, chain_id, token_id, type, status, amount FROM transactions WHERE wallet_id = ? ORDER BY created_at',
      )
      .all(wallet) as {
      transaction_id: string;
      hash: string | null;
      chain_id: string;
      token_id: string;
      type: string;
      status: string;
      amount: string;
    }[];
    const rand = prng(Number(values.seed) + 7);
    const lines = ['transaction_id,hash,chain_id,token_id,type,status,amount'];
    const want = { matched: 0, mismatched: 0, not_in_ledger: 0, not_in_books: 0, duplicates: 0 };
    for (const r of records) {
      const roll = rand();
      if (roll < 0.02) {
        want.not_in_books++;
        continue;
      }
      const byHash = r.hash !== null && rand() < 0.5;
      const id = byHash ? `,${r.hash},${r.chain_id}` : `${r.transaction_id},,${r.chain_id}`;
      const amount = roll < 0.03 ? `${r.amount}1` : r.amount;
      if (roll < 0.03) want.mismatched++;
      else want.matched++;
      const line = `${id},${r.token_id},${r.type},${r.status},${amount}`;
      lines.push(line);
      if (roll > 0.995) {
        lines.push(line);
        want.duplicates++;
      }
      if (roll > 0.03 && roll < 0.04) {
        lines.push(`,0x${'e'.repeat(56)}${String(lines.length).padStart(8, '0')},${r.chain_id},${r.token_id},${r.type},${r.status},1`);
        want.not_in_ledger++;
      }
    }
    const books = join(dir, 'books.csv');
    writeFileSync(books, lines.join('\n') + '\n');
    const claims = lines.length - 1;
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const detected = await service.invoke('reconcile-books-detect', { source: { path: books } }, cli);
    const session = values.profile ? new Session() : undefined;
    if (session) {
      session.connect();
      await post(session, 'Profiler.enable');
      await post(session, 'Profiler.start');
    }
    const t = performance.now();
    const run = await service.invoke(
      'reconcile-books-run',
      { source: { path: books }, mapping: detected.suggested, wallet_id: wallet, amount_delta: '0', two_way: true },
      cli,
    );
    const seconds = (performance.now() - t) / 1000;
    clearInterval(timer);
    if (session) {
      const { profile } = (await post(session, 'Profiler.stop')) as { profile: unknown };
      writeFileSync(join(tmpdir(), 'reconcile-books.cpuprofile'), JSON.stringify(profile));
      console.log(`CPU profile of the run: ${join(tmpdir(), 'reconcile-books.cpuprofile')}`);
    }
    const got = {
      matched: run.matched,
      mismatched: run.mismatched,
      not_in_ledger: run.not_found,
      not_in_books: run.not_in_books,
      duplicates: run.duplicates,
    };
    console.log(
      `ledger ${fmt(gen.rows)} records over ${gen.wallets.length} wallets; the wallet has ${fmt(records.length)}; books ${fmt(claims)} claims`,
    );
    console.log(
      `two-way run: ${seconds.toFixed(2)} s, ${fmt(claims / seconds)} claims/s; peak RSS ${fmt(peak / 2 ** 20)} MB (${fmt((peak - rss0) / 2 ** 20)} MB over the start)`,
    );
    console.log(`groups: ${JSON.stringify(got)}`);
    const ok = JSON.stringify(got) === JSON.stringify(want);
    console.log(ok ? 'groups as written: yes' : `groups as written: NO, expected ${JSON.stringify(want)}`);
    if (!ok) process.exitCode = 1;
  } finally {
    service.close();
    if (values.keep) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

void main();
