import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../../shared/errors';
import { failure } from '../test-support';
import { byHash, exportsService, FACTS, file, meta, plain, sameRecords, textOf } from './exports.test-support';

/*
 * More real explorer exports (test/fixtures/exports, sources and licences in its README): the
 * transaction list of 2024 on (Amount "0.05 BNB" beside Value (USD)) from BscScan and Etherscan, a
 * token page's export of mints on ApeChain, Tronscan's older TRC-20 export of one address, an
 * ERC-20 export of 2021 with an extra field on every row, and one contract's normal and ERC-20
 * exports of 2022 whose headers end in a blank column. The expected values are the files' own text
 * (facts.json is written from the files by check-facts.mjs, and the rows are read here as written),
 * never the importer's output.
 */

const WALLET = '7e1f0c9a-3b2d-4c5e-8f6a-9b0c1d2e3f4a';
const ZERO = '0x0000000000000000000000000000000000000000';

const service = exportsService();
const { importFile, all } = service;
const detect = (input: Record<string, unknown>) => service.svc.invoke('ledger-detect', input, meta);
/** What an import writes: the records, the imports listed, the wallets. A refused import changes none of it. */
const store = async () => ({
  records: await all(),
  imports: (await service.svc.invoke('imports-list', { page: 1, page_size: 100 }, meta)).total,
  wallets: await service.svc.invoke('wallets-list', {}, meta),
});
/** "2026-04-06 04:45:19" (or Tronscan's "2021/05/05 13:41:42") read as UTC. */
const utc = (cell: string) => Date.parse(`${cell.replace(/\//g, '-').replace(' ', 'T')}Z`);

/**
 * A file's data rows as written, each a map from its header's names to its cells (these files quote
 * every data cell, or none, and hold no quote inside a cell; an extra cell past the header is kept
 * under its position).
 */
function rowsOf(name: string): Record<string, string>[] {
  const header = FACTS[name]!.header;
  const lines = textOf(name).split(/\r?\n/).slice(1).filter(Boolean);
  expect(lines).toHaveLength(FACTS[name]!.rows);
  return lines.map((line) => {
    const cells = line.startsWith('"') ? line.slice(1, -1).split('","') : line.split(',');
    return Object.fromEntries(cells.map((c, i) => [header[i] ?? String(i), c]));
  });
}
/** The facts' amount of a column at a hash (the first such row). */
const factOf = (name: string, hash: string, column: string) =>
  FACTS[name]!.amounts.find((a) => a.hash === hash && a.column === column)!.raw;

describe('the transaction list of 2024 on (Amount "0.05 BNB", Value (USD), Txn Fee): the etherscan-list preset', () => {
  it('BscScan, a deployer’s 46 transactions: BNB Smart Chain from the "BNB" of its amounts, the wallet from its rows; every row as the file says, the fee on withdrawals only', async () => {
    const name = 'bscscan-2026-transaction-list-amount-0xd699.csv';
    const facts = FACTS[name]!;
    const wallet = facts.walletAddress!;
    expect(facts.amountUnits).toEqual({ column: 'Amount', units: ['BNB'] });

    const found = await detect({ source: file(name), wallet_id: WALLET });
    expect(found).toMatchObject({ preset: 'etherscan-list', needs: [], read_as: { chain_id: 'BSC_BNB', wallet_address: wallet } });
    // Its amounts say BNB: another chain is refused, nothing imported.
    const wrong = await failure(importFile({ source: file(name), wallet_id: WALLET, chain_id: 'ETH' }));
    expect(wrong.message).toMatch(/values are in BNB, but ETH's coin is ETH/);
    expect(await all()).toEqual([]);

    const r = await importFile({ source: file(name), wallet_id: WALLET });
    expect(r).toMatchObject({ preset: 'etherscan-list', rows_total: facts.rows, added: facts.rows, rejected: 0 });
    expect(r.read_as).toMatchObject({ chain_id: 'BSC_BNB', decimal_separator: '.', wallet_address: wallet, time_zone: 'UTC' });
    const records = await all({ wallet_id: WALLET });
    expect(records).toHaveLength(facts.rows);
    const byTx = byHash(records);
    // Every row: its Amount's number exactly, its direction from the wallet's address, its time in UTC,
    // the fee (Txn Fee) on the wallet's own transactions only: the deposit's fee was its sender's.
    const rows = rowsOf(name);
    for (const row of rows) {
      const [amount, coin] = row.Amount!.split(' ');
      expect(coin).toBe('BNB');
      const deposit = row.To === wallet;
      expect(deposit || row.From === wallet).toBe(true);
      expect(byTx.get(row['Transaction Hash']!)).toMatchObject({
        chain_id: 'BSC_BNB',
        token_id: 'BSC_BNB',
        type: deposit ? 'Deposit' : 'Withdrawal',
        amount: plain(amount!),
        to: row.To,
        fee: deposit ? '' : plain(row['Txn Fee']!),
        status: row.Status === 'Success' ? 'Completed' : 'Failed',
        created_at: utc(row['DateTime (UTC)']!),
      });
    }
    expect(rows.filter((row) => row.To === wallet)).toHaveLength(1);
    // The facts, as written: the one deposit "0.05 BNB" (its Txn Fee 0.00000105 not the wallet's), two withdrawals' fees.
    const deposit = '0xbce319c8ae344a60c34b1c08c097d8c1806c102cdc2207335ecb8f9953932b59';
    expect(factOf(name, deposit, 'Amount')).toBe('0.05 BNB');
    expect(byTx.get(deposit)).toMatchObject({ type: 'Deposit', amount: '0.05', fee: '', created_at: Date.UTC(2026, 1, 19, 9, 50, 35) });
    for (const a of facts.amounts.filter((x) => x.column === 'Txn Fee' && x.hash !== deposit))
      expect(byTx.get(a.hash)).toMatchObject({ type: 'Withdrawal', amount: '0', fee: a.raw });
    expect(byTx.get('0xc83e3042e211f49e15a107023bc92e5e51fc4978676e5ddcc7759b58ff20d96a')!.created_at).toBe(
      Date.UTC(2026, 3, 6, 4, 45, 19),
    );

    const again = await importFile({ source: file(name), wallet_id: WALLET });
    expect([again.added, again.updated, again.unchanged, again.rejected]).toEqual([0, 0, facts.rows, 0]);
    sameRecords(await all({ wallet_id: WALLET }), records);
  });

  it('Etherscan, one block’s 50 transactions of many senders: --chain and --wallet-address are asked; given, the wallet’s rows land (the reverted one Failed, its fee paid), the others are rejected naming the address', async () => {
    const name = 'etherscan-2024-transaction-list-amount-block-20950668.csv';
    const facts = FACTS[name]!;
    expect([facts.walletAddress, facts.addressesOnEveryRow, facts.amountUnits?.units]).toEqual([null, [], ['ETH']]);

    const found = await detect({ source: file(name), wallet_id: WALLET });
    expect(found.preset).toBe('etherscan-list');
    expect(found.needs).toEqual([
      expect.objectContaining({ field: 'chain_id', flag: '--chain', options: ['ETH', 'ARBITRUM_ETH', 'OPT_ETH', 'BASE_ETH'] }),
      expect.objectContaining({ field: 'wallet_address', flag: '--wallet-address', options: [] }),
    ]);
    const before = await store();
    const noChain = await failure(importFile({ source: file(name), wallet_id: WALLET }));
    expect(noChain.message).toMatch(/give --chain ETH\|ARBITRUM_ETH\|OPT_ETH\|BASE_ETH.*give --wallet-address A\); nothing was imported$/);
    const noAddress = await failure(importFile({ source: file(name), wallet_id: WALLET, chain_id: 'ETH' }));
    expect(noAddress.message).toMatch(/no address is on every one of its first rows.*\(give --wallet-address A\); nothing was imported$/);
    expect(noAddress.message).not.toMatch(/--chain/);
    expect(await store()).toEqual(before);

    const rows = rowsOf(name);
    const [failedRow] = facts.failedRows;
    expect(facts.failedRows).toHaveLength(1);
    // Each address the file is imported for (its own wallet): its rows land, the others are rejected with the reason.
    const wallets = [
      '1d4b6f84-2bde-4886-99a9-1c18cff8542e',
      '8c8d7c46-219d-4920-9f05-6f28fee5950a',
      'c02aaa39-b223-4e8d-8a0e-5c4f27ead908',
    ];
    for (const [i, account] of facts.accounts!.entries()) {
      const opts = { source: file(name), wallet_id: wallets[i], chain_id: 'ETH', wallet_address: account.address };
      const mine = [...account.rowsFrom, ...account.rowsTo].sort((a, b) => a - b);
      const r = await importFile(opts);
      expect(r).toMatchObject({ preset: 'etherscan-list', rows_total: facts.rows, added: mine.length, rejected: facts.rows - mine.length });
      expect(r.read_as).toMatchObject({ chain_id: 'ETH', wallet_address: account.address });
      expect(r.rejections.map((x) => x.row_number)).toEqual(rows.map((_, n) => n + 1).filter((n) => !mine.includes(n)));
      for (const x of r.rejections)
        expect(x.reason).toBe(
          `neither from nor to is the wallet's address ${account.address}, so it is neither a deposit nor a withdrawal (is --wallet-address right?)`,
        );
      const records = byHash(await all({ wallet_id: wallets[i] }));
      expect(records.size).toBe(mine.length);
      for (const n of mine) {
        const row = rows[n - 1]!;
        const [amount, coin] = row.Amount!.split(' ');
        const deposit = account.rowsTo.includes(n);
        expect(coin).toBe('ETH');
        expect(records.get(row['Transaction Hash']!)).toMatchObject({
          chain_id: 'ETH',
          token_id: 'ETH',
          type: deposit ? 'Deposit' : 'Withdrawal',
          amount: plain(amount!),
          to: row.To,
          fee: deposit ? '' : plain(row['Txn Fee']!),
          status: n === failedRow!.row ? 'Failed' : 'Completed',
          created_at: utc(row['DateTime (UTC)']!),
        });
      }
      const again = await importFile(opts);
      expect([again.added, again.updated, again.unchanged]).toEqual([0, 0, mine.length]);
    }
    // The facts, as written: the reverted call (0 ETH, its fee paid all the same), mercuryo's two withdrawals, 0.003 ETH into WETH.
    const records = byHash(await all());
    expect(records.get(failedRow!.hash)).toMatchObject({
      status: 'Failed',
      type: 'Withdrawal',
      amount: '0',
      fee: factOf(name, failedRow!.hash, 'Txn Fee'),
      created_at: Date.UTC(2024, 9, 12, 16, 19, 11),
    });
    expect(failedRow!.status).toBe('Error in Main Txn : execution reverted');
    for (const a of facts.amounts.filter((x) => x.column === 'Amount' && records.has(x.hash)))
      expect(`${records.get(a.hash)!.amount} ETH`).toBe(a.raw);
    expect(records.get('0x3ba3cc69e6f7537a67c13ef14bdd146c42b551e10cc6c6e9df75c80a72948aad')).toMatchObject({
      type: 'Withdrawal',
      amount: '0.04212963',
      fee: '0.00036656',
    });
    expect(records.get('0x1a232ff06ab5c2cbf46944e233066bb7cf08c833da89387acaf74fb5a0c34b71')).toMatchObject({
      type: 'Deposit',
      amount: '0.003',
      fee: '',
    });
    // Row 6 ("0.644136 ETH", "$1,592.30") is none of these wallets': not booked.
    expect(records.has('0xf7632ef18904489e280c4661f71804a1cf64e1dc73542aa83b9740a673d19e9a')).toBe(false);
  });
});

describe('a token page’s export of mints (ApeChain, every row from the zero address): the zero address is nobody’s wallet', () => {
  const name = 'apescan-token-page-transaction-hash-0x5f94-head.csv';
  /** The token of the page (ApeBit, ABIT), as the source repository names it; the file names no token. */
  const CONTRACT = '0x5f942b20b8aa905b8f6a46ae226e7f6bf2f44023';
  const addApeChain = async () => {
    // As `nps chains add APECHAIN --symbol APE --name ApeChain` does.
    await service.svc.invoke(
      'catalogue-chain-add',
      { chain_id: 'APECHAIN', chain_identifier: 'ETH', name: 'ApeChain', native_symbol: 'APE', native_decimal: 18 },
      meta,
    );
    return (
      await service.svc.invoke(
        'catalogue-token-add',
        { chain_id: 'APECHAIN', symbol: 'ABIT', contract_address: CONTRACT, decimal: 18 },
        meta,
      )
    ).token_id;
  };

  it('the wallet’s address is asked (no candidate), never taken from the zero address on every row; the zero or burn address given is refused naming wallet_address; nothing changes', async () => {
    const facts = FACTS[name]!;
    // The one address on every row is the zero address: the file is the token's, not a wallet's.
    expect([facts.walletAddress, facts.addressesOnEveryRow]).toEqual([null, [ZERO]]);
    expect(rowsOf(name).every((row) => row.From === ZERO)).toBe(true);

    const first = await detect({ source: file(name), wallet_id: WALLET });
    expect(first.preset).toBe('etherscan-token-page');
    expect(first.read_as.wallet_address).toBeNull();
    expect(first.needs.map((n) => [n.field, n.flag])).toEqual([
      ['chain_id', '--chain'],
      ['token_id', '--token'],
      ['wallet_address', '--wallet-address'],
    ]);
    // ApeChain is not in the catalogue: the chain question says a chain not listed is added first, and what the file tells of it.
    expect(first.needs[0]!.options).not.toContain('APECHAIN');
    expect(first.needs[0]!.reason).toMatch(/a chain not listed must be added first \(`nps chains add`\)$/);
    expect(first.needs[0]!.add_chain).toMatchObject({ chain_identifier: 'ETH', native_decimal: 18 });
    expect(first.needs[2]).toMatchObject({ options: [], reason: expect.stringMatching(/no address is on every one of its first rows/) });

    const before = await store();
    const asked = await failure(importFile({ source: file(name), wallet_id: WALLET }));
    expect(asked.message).toMatch(/give --chain .*give --token .*give --wallet-address A\); nothing was imported$/);

    const tokenId = await addApeChain();
    const withToken = await detect({ source: file(name), wallet_id: WALLET, token_id: tokenId });
    expect(withToken.read_as).toMatchObject({ chain_id: 'APECHAIN', wallet_address: null });
    expect(withToken.needs).toEqual([
      {
        field: 'wallet_address',
        flag: '--wallet-address',
        options: [],
        reason:
          "the file has no type column, and no address is on every one of its first rows: give the wallet's address to tell deposits from withdrawals",
      },
    ]);
    const noAddress = await failure(importFile({ source: file(name), wallet_id: WALLET, token_id: tokenId }));
    expect(noAddress.message).toMatch(/\(give --wallet-address A\); nothing was imported$/);
    expect(noAddress.message).not.toContain(ZERO);

    // The zero address, or the burn address in any case, given as the wallet's: refused (1002, naming wallet_address).
    for (const address of [ZERO, '0x000000000000000000000000000000000000dEaD']) {
      const refused = await failure(importFile({ source: file(name), wallet_id: WALLET, token_id: tokenId, wallet_address: address }));
      expect(refused.code).toBe(ErrorCodes.INVALID_PARAM);
      expect(refused.message).toBe(
        `wallet_address: ${address} is the address tokens are minted from and burned to, not a wallet's; give the address the export was made for`,
      );
    }
    expect(await store()).toEqual(before);
    expect(before).toEqual({ records: [], imports: 0, wallets: [] });
  });

  it('ApeChain and its token added, the wallet’s address given: its 9 mints are Deposits exactly as the file says, the 31 rows of others rejected, each saying why', async () => {
    const facts = FACTS[name]!;
    const [account] = facts.accounts!;
    const address = account!.address;
    expect([account!.rowsTo.length, account!.rowsFrom]).toEqual([9, []]);
    const tokenId = await addApeChain();

    const opts = { source: file(name), wallet_id: WALLET, token_id: tokenId, wallet_address: address };
    const r = await importFile(opts);
    expect(r).toMatchObject({ preset: 'etherscan-token-page', rows_total: facts.rows, added: 9, rejected: facts.rows - 9 });
    expect(r.read_as).toMatchObject({ chain_id: 'APECHAIN', wallet_address: address, time_zone: 'UTC' });
    const rows = rowsOf(name);
    expect(r.rejections.map((x) => [x.row_number, x.column, x.value])).toEqual(
      rows.flatMap((_, i) => (account!.rowsTo.includes(i + 1) ? [] : [[i + 1, 'From', ZERO]])),
    );
    expect(new Set(r.rejections.map((x) => x.reason))).toEqual(
      new Set([
        `neither from nor to is the wallet's address ${address}, so it is neither a deposit nor a withdrawal (is --wallet-address right?)`,
      ]),
    );

    const records = await all({ wallet_id: WALLET });
    expect(records).toHaveLength(9);
    const byTx = byHash(records);
    for (const n of account!.rowsTo) {
      const row = rows[n - 1]!;
      expect(byTx.get(row['Transaction Hash']!)).toMatchObject({
        chain_id: 'APECHAIN',
        token_id: tokenId,
        type: 'Deposit',
        amount: plain(row.Quantity!),
        to: address,
        fee: '',
        status: 'Completed',
        created_at: Number(row.UnixTimestamp) * 1000,
      });
      // Its DateTime (UTC) is the same moment.
      expect(utc(row['DateTime (UTC)']!)).toBe(Number(row.UnixTimestamp) * 1000);
    }
    // The facts: "2" and "100" minted to the wallet; "20" (row 5) to another address, not booked.
    for (const a of facts.amounts) expect(byTx.get(a.hash)?.amount).toBe(account!.rowsTo.includes(a.row) ? a.raw : undefined);
    expect(byTx.get('0xbfd8fb058f46dd7c86dc451c803d0fe4bdfa03a2f52077f2cff72d1e0235dcc3')!.created_at).toBe(Date.UTC(2025, 9, 1, 0, 10, 6));
    // The wallet's balance is what was minted to it, never negative.
    const totals = await service.svc.invoke('transactions-totals', { wallet_id: WALLET }, meta);
    expect(totals.totals).toEqual([
      expect.objectContaining({
        token_id: tokenId,
        type: 'Deposit',
        count: 9,
        amount: String(account!.rowsTo.reduce((s, n) => s + Number(rows[n - 1]!.Quantity), 0)),
      }),
    ]);

    const again = await importFile(opts);
    expect([again.added, again.updated, again.unchanged, again.rejected]).toEqual([0, 0, 9, facts.rows - 9]);
    sameRecords(await all({ wallet_id: WALLET }), records);
  });
});

describe('Tronscan’s older TRC-20 export of one address (Tether’s cold wallet, no token column)', () => {
  const name = 'tronscan-trc20-address-THPva-cold-head.csv';

  it('its token asked; given TRON_USDT, the rows written to 8 or 18 decimal places are rejected as another token’s, the 78 others land exactly, in UTC, into and out of the wallet', async () => {
    const facts = FACTS[name]!;
    const wallet = facts.walletAddress!;
    const places = facts.writtenPlaces!;
    expect([places.column, places.most, places.otherRows.map((x) => [x.row, x.places])]).toEqual([
      'quant',
      6,
      [
        [9, 8],
        [10, 8],
        [69, 18],
      ],
    ]);

    const found = await detect({ source: file(name), wallet_id: WALLET });
    expect(found.preset).toBe('tronscan');
    // The wallet is the one address on every row; TRON's zero address (the mints' sender) is never it.
    expect(found.read_as).toMatchObject({ chain_id: 'TRON', wallet_address: wallet });
    // Whether the zone of block_ts (written without one) is asked is not this test's concern; where it is, UTC is stated.
    const zoneAsked = found.needs.some((n) => n.flag === '--time-zone');
    const opts = { source: file(name), wallet_id: WALLET, ...(zoneAsked ? { time_zone: 'UTC' } : {}) };
    expect(found.needs.filter((n) => n.flag !== '--time-zone')).toEqual([
      expect.objectContaining({ field: 'token_id', flag: '--token', options: ['TRON', 'TRON_USDT'] }),
    ]);
    const before = await store();
    const asked = await failure(importFile(opts));
    expect(asked.message).toMatch(/names no token.*\(give --token TRON\|TRON_USDT\)/);
    expect(asked.message).toMatch(/; nothing was imported$/);
    expect(await store()).toEqual(before);

    const r = await importFile({ ...opts, token_id: 'TRON_USDT' });
    const other = places.otherRows;
    expect(r).toMatchObject({ preset: 'tronscan', rows_total: facts.rows, added: facts.rows - other.length, rejected: other.length });
    expect(r.read_as).toMatchObject({ chain_id: 'TRON', wallet_address: wallet, time_zone: 'UTC' });
    expect(r.rejections).toEqual(
      other.map((x) => ({
        row_number: x.row,
        column: 'quant',
        value: x.raw,
        reason: `${x.raw} is written with ${x.places} decimal places and TRON_USDT has 6: this export writes every amount to its token's precision, so the row moves another token, which the file does not name`,
      })),
    );

    const records = await all({ wallet_id: WALLET });
    expect(records).toHaveLength(facts.rows - other.length);
    const byTx = byHash(records);
    const rows = rowsOf(name);
    for (const [i, row] of rows.entries()) {
      const rejected = other.some((x) => x.row === i + 1);
      if (rejected) {
        expect(byTx.has(row.transaction_id!)).toBe(false);
        continue;
      }
      const deposit = row.to_address === wallet;
      expect(deposit || row.from_address === wallet).toBe(true);
      expect(byTx.get(row.transaction_id!)).toMatchObject({
        chain_id: 'TRON',
        token_id: 'TRON_USDT',
        type: deposit ? 'Deposit' : 'Withdrawal',
        amount: plain(row.quant!),
        to: row.to_address,
        fee: '',
        status: row.confirmed === 'true' && row.contractRet === 'SUCCESS' ? 'Completed' : 'Failed',
        created_at: utc(row.block_ts!),
      });
    }
    // The facts, as written: 2000000000.000000 out, 0.275498 and 9966.000000 in; the first row's block_ts in UTC.
    const first = facts.amounts[0]!;
    expect(byTx.get(first.hash)).toMatchObject({
      type: 'Withdrawal',
      amount: plain(first.raw),
      created_at: Date.UTC(2021, 4, 5, 13, 41, 42),
    });
    expect(plain(first.raw)).toBe('2000000000');
    for (const a of facts.amounts.slice(1)) {
      const record = byTx.get(a.hash);
      if (other.some((x) => x.hash === a.hash)) expect(record).toBeUndefined();
      else expect(record).toMatchObject({ type: 'Deposit', amount: plain(a.raw) });
    }
    // A mint from TRON's zero address is a deposit into the wallet; the wallet's send to it a withdrawal.
    const zero = 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb';
    const mints = rows.filter((row) => row.from_address === zero);
    expect(mints.length).toBeGreaterThan(20);
    for (const row of mints) expect(byTx.get(row.transaction_id!)?.type).toBe('Deposit');
    const burn = rows.find((row) => row.to_address === zero)!;
    expect(byTx.get(burn.transaction_id!)).toMatchObject({ type: 'Withdrawal', to: zero, amount: plain(burn.quant!) });

    const again = await importFile({ ...opts, token_id: 'TRON_USDT' });
    expect([again.added, again.updated, again.unchanged, again.rejected]).toEqual([0, 0, records.length, other.length]);
    sameRecords(await all({ wallet_id: WALLET }), records);
  });
});

/** The file's tokens added as the file describes them (symbol, contract), with the decimals their contracts have. */
async function addTokens(chainId: string, tokens: { symbol: string; contract_address: string }[], decimals: Record<string, number> = {}) {
  const ids = new Map<string, string>();
  for (const t of tokens) {
    const added = await service.svc.invoke(
      'catalogue-token-add',
      { chain_id: chainId, symbol: t.symbol, contract_address: t.contract_address, decimal: decimals[t.symbol] ?? 18 },
      meta,
    );
    ids.set(t.contract_address, added.token_id);
  }
  return ids;
}
/** Unknown tokens as the file lists them: [symbol, contract, rows]. */
const tokensOfFile = (name: string) => {
  const rows = rowsOf(name);
  return FACTS[name]!.tokens.map((t) => [t.symbol, t.contract, rows.filter((row) => row.ContractAddress === t.contract).length]).sort();
};

describe('an ERC-20 export of 2021 ("Value", no Blockno) with one field more than its header on every row', () => {
  const name = 'etherscan-2021-erc20-value-trailing-field-0xaf5a-head.csv';

  it('its chain asked; every row rejected as an unknown token, listed by contract; the tokens added, all 56 land exactly, by contract, in and out, in UTC', async () => {
    const facts = FACTS[name]!;
    const wallet = facts.walletAddress!;
    expect(facts.extraTrailingField).toBe(true);
    expect(facts.header).not.toContain('TokenValue');

    const found = await detect({ source: file(name), wallet_id: WALLET });
    expect(found).toMatchObject({ preset: 'etherscan-tokens', read_as: { wallet_address: wallet } });
    expect(found.needs).toEqual([expect.objectContaining({ field: 'chain_id', flag: '--chain' })]);

    const first = await importFile({ source: file(name), wallet_id: WALLET, chain_id: 'ETH' });
    expect(first).toMatchObject({ preset: 'etherscan-tokens', rows_total: facts.rows, added: 0, rejected: facts.rows });
    expect(first.unknown_tokens.map((t) => [t.symbol, t.contract_address, t.rows]).sort()).toEqual(tokensOfFile(name));
    expect(await all()).toEqual([]);

    const ids = await addTokens('ETH', first.unknown_tokens, { WBTC: 8 });
    const r = await importFile({ source: file(name), wallet_id: WALLET, chain_id: 'ETH' });
    // The extra empty cell on every row is read as the header's width: no row rejected for it.
    expect(r).toMatchObject({ rows_total: facts.rows, added: facts.rows, rejected: 0, unknown_tokens: [] });
    expect(r.read_as).toMatchObject({ chain_id: 'ETH', decimal_separator: '.', wallet_address: wallet });
    const records = await all({ wallet_id: WALLET });
    expect(records).toHaveLength(facts.rows);
    // Every row its own record: its Value exactly (thousands separators dropped), its token by contract, its direction, its time.
    for (const row of rowsOf(name)) {
      expect(row['9']).toBe('');
      const deposit = row.To === wallet;
      expect(deposit || row.From === wallet).toBe(true);
      const matches = records.filter(
        (x) =>
          x.hash === row.Txhash &&
          x.token_id === ids.get(row.ContractAddress!) &&
          x.amount === plain(row.Value!) &&
          x.type === (deposit ? 'Deposit' : 'Withdrawal'),
      );
      expect(matches).toHaveLength(1);
      expect(matches[0]).toMatchObject({
        chain_id: 'ETH',
        to: row.To,
        fee: '',
        status: 'Completed',
        created_at: Number(row.UnixTimestamp) * 1000,
      });
      expect(utc(row.DateTime!)).toBe(Number(row.UnixTimestamp) * 1000);
    }
    // The facts, as written: "190,720.883372992770398294" BPT in; one hash of BAL out and WBTC in; one of BPT out and four tokens in.
    const rows = rowsOf(name);
    for (const a of facts.amounts) {
      const row = rows[a.row - 1]!;
      expect(records.filter((x) => x.hash === a.hash && x.token_id === ids.get(row.ContractAddress!)).map((x) => x.amount)).toEqual([
        plain(a.raw),
      ]);
    }
    expect(records.find((x) => x.hash === facts.amounts[0]!.hash)).toMatchObject({
      token_id: ids.get('0xc1c70266ef3dc680e55c5a1c451f664446a9849d'),
      type: 'Deposit',
      amount: '190720.883372992770398294',
      created_at: Date.UTC(2021, 3, 8, 10, 38, 53),
    });
    const swap = records.filter((x) => x.hash === '0x12dcb1e95b7f3e043140dbde11e6c0830737b2a5bda6c905085ce6429913cdd8');
    expect(swap.map((x) => x.type).sort()).toEqual(['Deposit', 'Deposit', 'Deposit', 'Deposit', 'Withdrawal']);
    expect(swap.find((x) => x.type === 'Withdrawal')!.amount).toBe('193471.864692638329102022');
    expect(swap.find((x) => x.token_id === 'ETH_WBTC')!.amount).toBe('16.31309592');

    const again = await importFile({ source: file(name), wallet_id: WALLET, chain_id: 'ETH' });
    expect([again.added, again.updated, again.unchanged]).toEqual([0, 0, facts.rows]);
    sameRecords(await all({ wallet_id: WALLET }), records);
  });
});

describe('one contract’s normal and ERC-20 exports of 2022, their headers ending in a blank column', () => {
  const txlist = 'etherscan-2022-txlist-header-blank-col-0x08d3-head.csv';
  const erc20 = 'etherscan-2022-erc20-header-blank-col-0x08d3-head.csv';
  const opts = { wallet_id: WALLET, chain_id: 'ETH' };

  /** Both files imported (the token export's tokens added first), in the order given. */
  async function importBoth(order: string[]) {
    const ids = await addTokens(
      'ETH',
      FACTS[erc20]!.tokens.map((t) => ({ symbol: t.symbol, contract_address: t.contract })),
    );
    const reports = [];
    for (const name of order) reports.push(await importFile({ source: file(name), ...opts }));
    return { ids, reports };
  }

  it('each movement its own record: the token export adds its 47 transfers and leaves the 35 normal records as they were; re-importing either changes nothing', async () => {
    const wallet = FACTS[txlist]!.walletAddress!;
    expect(FACTS[erc20]!.walletAddress).toBe(wallet);
    // The blank column as written: `"Method", ""` in the normal export, `"TokenSymbol",""` in the token one.
    expect(FACTS[txlist]!.header.at(-1)).toBe(' ""');
    expect(FACTS[erc20]!.header.at(-1)).toBe('');

    const normal = await importFile({ source: file(txlist), ...opts });
    expect(normal).toMatchObject({ preset: 'etherscan', rows_total: FACTS[txlist]!.rows, added: FACTS[txlist]!.rows, rejected: 0 });
    expect(normal.read_as).toMatchObject({ chain_id: 'ETH', wallet_address: wallet });
    // The blank column is no column the import left unread.
    expect(normal.message).toMatch(/Columns not read: .*, Method\.$/);
    const normalRecords = await all({ wallet_id: WALLET });
    expect(normalRecords).toHaveLength(FACTS[txlist]!.rows);
    // A staking contract's export: it paid no fee; every row moved 0 ETH into it (calls), row 1 is its creation.
    const byTx = byHash(normalRecords);
    const rows = rowsOf(txlist);
    for (const row of rows) {
      expect([row['Value_IN(ETH)'], row['Value_OUT(ETH)'], row.Status, row.ErrCode]).toEqual(['0', '0', '', '']);
      expect(byTx.get(row.Txhash!)).toMatchObject({
        chain_id: 'ETH',
        token_id: 'ETH',
        type: 'Deposit',
        amount: '0',
        to: wallet,
        fee: '',
        status: 'Completed',
        created_at: Number(row.UnixTimestamp) * 1000,
      });
      expect(utc(row.DateTime!)).toBe(Number(row.UnixTimestamp) * 1000);
    }
    expect([rows[0]!.To, rows[0]!.ContractAddress]).toEqual(['', wallet]);
    expect(factOf(txlist, rows[0]!.Txhash!, 'TxnFee(ETH)')).toBe('0.058574559059217792');

    const unknown = await importFile({ source: file(erc20), ...opts });
    expect(unknown).toMatchObject({ preset: 'etherscan-tokens', added: 0, rejected: FACTS[erc20]!.rows });
    expect(unknown.unknown_tokens.map((t) => [t.symbol, t.contract_address, t.rows]).sort()).toEqual(tokensOfFile(erc20));
    sameRecords(await all(), normalRecords);

    const ids = await addTokens('ETH', unknown.unknown_tokens);
    const tokens = await importFile({ source: file(erc20), ...opts });
    expect(tokens).toMatchObject({ rows_total: FACTS[erc20]!.rows, added: FACTS[erc20]!.rows, rejected: 0 });
    const after = await all({ wallet_id: WALLET });
    expect(after).toHaveLength(FACTS[txlist]!.rows + FACTS[erc20]!.rows);
    sameRecords(
      after.filter((x) => x.token_id === 'ETH'),
      normalRecords,
    );
    const tokenRecords = after.filter((x) => x.token_id !== 'ETH');
    // Movements: 0 the transaction's own (native) one, from 1,000,000 its token transfers.
    expect(new Set(normalRecords.map((x) => x.movement))).toEqual(new Set([0]));
    expect(tokenRecords.every((x) => x.movement >= 1_000_000)).toBe(true);
    for (const row of rowsOf(erc20)) {
      const deposit = row.To === wallet;
      expect(deposit || row.From === wallet).toBe(true);
      const matches = tokenRecords.filter(
        (x) =>
          x.hash === row.Txhash &&
          x.token_id === ids.get(row.ContractAddress!) &&
          x.amount === plain(row.TokenValue!) &&
          x.type === (deposit ? 'Deposit' : 'Withdrawal'),
      );
      expect(matches).toHaveLength(1);
      expect(matches[0]).toMatchObject({ chain_id: 'ETH', fee: '', status: 'Completed', created_at: Number(row.UnixTimestamp) * 1000 });
    }
    // The facts, as written: two OCEAN transfers of one hash into the wallet are two records; the LP token and OCEAN out in one hash.
    const amountsAt = (hash: string) =>
      after
        .filter((x) => x.hash === hash)
        .map((x) => [x.token_id, x.type, x.amount])
        .sort();
    const facts = FACTS[erc20]!.amounts;
    expect(amountsAt(facts[2]!.hash)).toEqual(
      [
        ['ETH_OCEAN', 'Deposit', plain(facts[2]!.raw)],
        ['ETH_OCEAN', 'Deposit', plain(facts[3]!.raw)],
      ].sort(),
    );
    expect(amountsAt(facts[4]!.hash)).toEqual(
      [
        ['ETH', 'Deposit', '0'],
        [ids.get('0xf8c4cd95c7496cb7c8d97202cf7e5b8da2204c2b'), 'Withdrawal', '12347.238820498163452125'],
        ['ETH_OCEAN', 'Withdrawal', plain(facts[5]!.raw)],
      ].sort(),
    );
    expect(plain(facts[0]!.raw)).toBe('151818.258340666497836055');
    expect(byHash(tokenRecords).get(facts[0]!.hash)?.amount).toBe('151818.258340666497836055');

    for (const [name, added] of [
      [txlist, normal.added],
      [erc20, tokens.added],
    ] as const) {
      const again = await importFile({ source: file(name), ...opts });
      expect([name, again.added, again.updated, again.unchanged]).toEqual([name, 0, 0, added]);
    }
    sameRecords(await all({ wallet_id: WALLET }), after);
  });

  it('imported token export first, then the normal one: the same records', async () => {
    const { reports } = await importBoth([erc20, txlist]);
    expect(reports.map((r) => [r.added, r.rejected])).toEqual([
      [FACTS[erc20]!.rows, 0],
      [FACTS[txlist]!.rows, 0],
    ]);
    const reversed = await all();
    // A store of its own for the other order.
    service.renew();
    await importBoth([txlist, erc20]);
    sameRecords(await all(), reversed);
  });
});
