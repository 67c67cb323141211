import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { BooksRunInput } from '../../../shared/reconcile';
import { buildServer } from '../http/server';
import { signedInject } from '../http/signed.test-support';
import { tempService } from '../test-support';

/*
 * Books kept the way an accountant keeps them (test/fixtures/books/README.md) over a real Etherscan
 * export of one address (normal, internal and ERC-20 transfers), October 2020: dates without a
 * time, In/Out columns, a line per gas fee, both legs of swaps under one hash, a line booked twice,
 * a line the ledger lacks, a record the books leave out, one amount mistyped.
 */

const EXPORTS = join(import.meta.dirname, '../../../../test/fixtures/exports');
const BOOKS = join(import.meta.dirname, '../../../../test/fixtures/books');
const ui = { actor: 'ui' as const };
const UNI = { chain_id: 'ETH', contract_address: '0x1f9840a85d5af5bf1d1762f925bdaddc4201f984', symbol: 'UNI', decimal: 18 };

const H = {
  approveYfi: '0xdea84e163eae7b6cf3b5a92421219bfcc35d17d1f736257893972b2ff14d2055',
  reverted: '0xeba1a773729a6092f1d20f00276d610cf216f9ed38dde3efe5871f5d6690fcd5',
  addLiquidityYfi: '0xe8e8d4ec95387fbb74c08819c240e3808e2758ab5dfc4aa170a8c5fa24f22092',
  swapUni: '0xf43ac72f971aebb1a29489ee89e19ef2c1e2d31e17457366ea18b470247d1245',
  addLiquidityUni: '0x0c121c335293f6e658570f08fe8584b717d3aab44f863f9e381f73831d3292b0',
  unbooked: '0x9c28cce37cd945eed78110452aa5f659bca7025976eda4e084b46e4776ef3fed',
  payUsdc: '0x2974fe5522bb37ca610fc9cbaaf687fec5d2e12da2c2a856ffaca6507b4ab878',
  approveTwice: '0xfe036385e504f482ffb5ad34986ebfef9c2e2b4f33fb62377be7a6c75422303d',
};

describe('a month of a real Etherscan export against books kept by hand', () => {
  const svc = tempService({ now: () => Date.UTC(2020, 10, 2) });
  afterAll(() => svc.dispose());
  let wallet = '';
  const run = (file: string, extra: Partial<BooksRunInput> = {}) =>
    svc.invoke(
      'reconcile-books-run',
      {
        source: { path: file.startsWith('/') ? file : join(BOOKS, file) },
        mapping: extra.mapping ?? detected(file),
        wallet_id: wallet,
        from: '2020-10-01',
        to: '2020-10-31',
        time_zone: 'Europe/Berlin',
        ...extra,
      } as BooksRunInput,
      ui,
    );
  const suggestions = new Map<string, BooksRunInput['mapping']>();
  const detected = (file: string) => suggestions.get(file)!;

  beforeAll(async () => {
    await svc.invoke('catalogue-token-add', UNI, { actor: 'cli' });
    for (const kind of ['txlist', 'internal', 'erc20']) {
      await svc.invoke(
        'ledger-import',
        { source: { path: join(EXPORTS, `etherscan-0x003dc-${kind}.csv`) }, wallet_name: 'Treasury', chain_id: 'ETH' },
        { actor: 'cli' },
      );
    }
    wallet = (await svc.invoke('wallets-list', {}, ui)).find((w) => w.name === 'Treasury')!.wallet_id;
    for (const file of ['treasury-2020-10.csv', 'treasury-2020-10-eu.csv']) {
      const d = await svc.invoke('reconcile-books-detect', { source: { path: join(BOOKS, file) } }, ui);
      suggestions.set(file, d.suggested);
    }
  });

  test('the mapping is found from the header; the preview says the books carry dates only and which token each symbol is', async () => {
    const mapping = detected('treasury-2020-10.csv');
    expect(mapping.columns).toEqual({
      time: 'Date',
      hash: 'Tx hash',
      token_id: 'Currency',
      amount_in: 'In',
      amount_out: 'Out',
      fee: 'Fee',
      description: 'Description',
    });
    const preview = await svc.invoke(
      'reconcile-books-preview',
      { source: { path: join(BOOKS, 'treasury-2020-10.csv') }, mapping, wallet_id: wallet },
      ui,
    );
    expect(preview.problems).toEqual([]);
    expect(preview.read_as).toEqual({
      decimal_separator: '.',
      date_order: 'day_first',
      dates_only: true,
      tokens: { UNI: 'ETH_UNI', USDC: 'ETH_USDC' },
    });
    expect(preview.rows.every((r) => r.error === null)).toBe(true);
    // A gas line: In and Out empty, a fee.
    expect(preview.rows[0]!.claim).toMatchObject({
      type: 'Withdrawal',
      amount: '0',
      fee: '0.003186504',
      token_id: 'ETH',
      time: '2020-10-09 (all day)',
    });
  });

  for (const file of ['treasury-2020-10.csv', 'treasury-2020-10-eu.csv']) {
    test(`${file}: exactly the five groups the accountant expects, no rejected line, no false pairing`, async () => {
      const result = await run(file);
      expect(result.rejected).toEqual([]);
      expect(result).toMatchObject({
        item_count: 23,
        matched: 20,
        mismatched: 1,
        not_found: 1,
        not_in_books: 1,
        duplicates: 1,
        rejected_count: 0,
      });
      const report = await svc.invoke('run-report', { run_id: result.run_id }, ui);
      const byRow = new Map([...report.groups.matched, ...report.groups.mismatched].map((i) => [i.books_row, i.record!]));
      const leg = (row: number) => {
        const r = byRow.get(row)!;
        return `${r.hash.slice(0, 10)} ${r.type} ${r.amount} ${r.token_id} fee ${r.fee || '-'}`;
      };
      // Both legs of the UNI swap and its gas, each with its own movement of the one hash.
      expect([leg(11), leg(12), leg(13)]).toEqual([
        '0xf43ac72f Withdrawal 200 ETH_UNI fee -',
        '0xf43ac72f Deposit 1.782983790365391295 ETH fee -',
        '0xf43ac72f Withdrawal 0 ETH fee 0.00375381',
      ]);
      // The refund of an add-liquidity is the internal deposit, not the transaction that paid 2.13 ETH and its fee.
      expect([leg(9), leg(10)]).toEqual([
        '0xe8e8d4ec Withdrawal 2.132888647794691096 ETH fee 0.00454512',
        '0xe8e8d4ec Deposit 0.010232200469249041 ETH fee -',
      ]);
      expect([leg(14), leg(15)]).toEqual([
        '0x0c121c33 Withdrawal 1.788354169141517401 ETH fee 0.004103424',
        '0x0c121c33 Withdrawal 200 ETH_UNI fee -',
      ]);
      // The gas of a reverted transaction is the fee of its Failed record.
      expect(leg(4)).toBe('0xeba1a773 Withdrawal 3.084393403720989225 ETH fee 0.001476544');
      expect(report.groups.mismatched.map((i) => [i.books_row, (i.record as { hash: string }).hash])).toEqual([[18, H.payUsdc]]);
      expect(report.groups.duplicates.map((i) => [i.books_row, (i.record as { hash: string }).hash])).toEqual([[20, H.approveTwice]]);
      expect(report.groups.not_in_ledger.map((i) => i.books_row)).toEqual([21]);
      expect(report.groups.not_in_books.map((i) => (i.record as { hash: string }).hash)).toEqual([H.unbooked]);
    });
  }

  test('the API pairs by the same rule: each leg of one hash with its own record', async () => {
    const { api_secret } = await svc.invoke('keys-create', { label: 'books robot', wallets: null }, { actor: 'cli' });
    const app = buildServer(svc, { log: () => {}, rateLimit: false });
    try {
      const res = await signedInject(
        app,
        api_secret,
        {
          method: 'POST',
          url: '/nps/bill/verify/txs',
          body: {
            wallet_id: wallet,
            txs: [
              { hash: H.swapUni, token_id: 'ETH', type: 'Deposit', amount: '1.782983790365391295' },
              { hash: H.swapUni, token_id: 'ETH_UNI', type: 'Withdrawal', amount: 200 },
              { hash: H.swapUni, fee: '0.00375381' },
              { hash: H.swapUni, token_id: 'ETH', amount: '1.782983790365391295' },
            ],
          },
        },
        Date.UTC(2020, 10, 2),
      );
      expect(res.body).toMatchObject({ status: 0 });
      const data = res.body.data as { result: boolean; tx: { type: string; amount: string; token_id: string; fee: string } }[];
      expect(data.map((d) => [d.result, d.tx.type, d.tx.token_id, d.tx.amount, d.tx.fee])).toEqual([
        [true, 'Deposit', 'ETH', '1.782983790365391295', ''],
        [true, 'Withdrawal', 'ETH_UNI', '200', ''],
        [true, 'Withdrawal', 'ETH', '0', '0.00375381'],
        // The API answers every item as it comes: the same leg claimed again pairs with it again.
        [true, 'Deposit', 'ETH', '1.782983790365391295', ''],
      ]);
    } finally {
      await app.close();
    }
  });

  test('a later run settles what the books put right; what a person dismissed stays dismissed', async () => {
    const first = await run('treasury-2020-10.csv', { label: 'October, first pass' });
    const open = await svc.invoke('tickets-list', { status: 'Pending', page: 1, page_size: 50 }, ui);
    const pending = (kind: string) => open.list.filter((t) => t.kind === kind);
    expect(pending('mismatch').map((t) => t.transaction_id)).toHaveLength(1);
    const duplicate = pending('duplicate')[0]!;
    await svc.invoke('tickets-transition', { ticket_ids: [duplicate.ticket_id], to: 'Dismissed', note: 'copy-paste, fixed' }, ui);

    // The accountant corrects the books: the USDC payment's amount, the duplicate line gone, the missing approval booked.
    const lines = readFileSync(join(BOOKS, 'treasury-2020-10.csv'), 'utf8').trimEnd().split('\n');
    const corrected = lines
      .filter((l) => !l.startsWith('15/10/2020'))
      .map((l) => (l.includes('Pay supplier in USDC,USDC') ? l.replace(',2050,', ',2500,') : l));
    corrected.splice(9, 0, `10/10/2020,Approve YFI for Uniswap (gas),ETH,,,0.001788275939625826,${H.unbooked}`);
    const file = join(svc.dataDir, 'treasury-2020-10-corrected.csv');
    writeFileSync(file, corrected.join('\n') + '\n');
    const second = await run(file, { mapping: detected('treasury-2020-10.csv'), label: 'October, corrected' });
    expect(second).toMatchObject({ matched: 22, mismatched: 0, not_found: 1, not_in_books: 0, duplicates: 0, settled: 2 });

    const mismatch = pending('mismatch')[0]!;
    const settled = await svc.invoke('ticket-get', { ticket_id: mismatch.ticket_id }, ui);
    expect(settled.status).toBe('Resolved');
    expect(settled.events.at(-1)).toMatchObject({
      from_status: 'Pending',
      to_status: 'Resolved',
      note: `Settled by books run "October, corrected" (${second.run_id}): the books now agree with the ledger (books row 19)`,
    });
    const unbooked = (await svc.invoke('tickets-list', { kind: 'not_in_books', page: 1, page_size: 10 }, ui)).list;
    expect(unbooked.map((t) => [t.transaction_id !== '', t.status])).toEqual([[true, 'Resolved']]);
    // Dismissed by a person: the later run leaves it so.
    expect((await svc.invoke('ticket-get', { ticket_id: duplicate.ticket_id }, ui)).status).toBe('Dismissed');
    // The line the ledger lacks is still claimed and still not in the ledger: still Pending, updated by the new run.
    const missing = (await svc.invoke('tickets-list', { kind: 'not_in_ledger', page: 1, page_size: 10 }, ui)).list;
    expect(missing.map((t) => [t.status, t.run_id])).toEqual([['Pending', second.run_id]]);
    expect(first.run_id).not.toBe(second.run_id);
  });
});
