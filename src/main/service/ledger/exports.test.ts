import { describe, expect, it } from 'vitest';
import type { ImportReport } from '../../../shared/ledger';
import { buildServer } from '../http/server';
import { signedInject } from '../http/signed.test-support';
import { failure } from '../test-support';
import { byHash, exportsService, FACTS, file, meta, plain, sameRecords, textOf } from './exports.test-support';

/*
 * Real explorer and exchange exports (test/fixtures/exports, sources and licences in its README).
 * The expected values are the files' own text (facts.json is written from the files by
 * check-facts.mjs), never the importer's output.
 */

const WALLET = '0a3dc32f-e920-44aa-8eed-12dc87e145f0';

const service = exportsService();
const { importFile, all } = service;

describe('one wallet’s Etherscan exports: normal, internal and ERC-20 transfers', () => {
  const txlist = 'etherscan-0x003dc-txlist.csv';
  const internal = 'etherscan-0x003dc-internal.csv';
  const erc20 = 'etherscan-0x003dc-erc20.csv';
  const opts = { wallet_id: WALLET, chain_id: 'ETH' };

  it('import together, each movement its own record; the token export leaves every normal record as it was', async () => {
    const normal = await importFile({ source: file(txlist), ...opts });
    expect(normal).toMatchObject({ preset: 'etherscan', rows_total: FACTS[txlist]!.rows, added: FACTS[txlist]!.rows, rejected: 0 });
    expect(normal.read_as).toMatchObject({ chain_id: 'ETH', decimal_separator: '.', wallet_address: FACTS[txlist]!.walletAddress });
    const normalRecords = await all({ wallet_id: WALLET });
    // Failed transactions are kept, as Failed.
    expect(normalRecords.filter((r) => r.status === 'Failed')).toHaveLength(FACTS[txlist]!.failedRows.length);
    for (const a of FACTS[txlist]!.amounts) {
      const r = normalRecords.find((x) => x.hash === a.hash)!;
      expect(r[a.column.startsWith('TxnFee') ? 'fee' : 'amount']).toBe(plain(a.raw));
      expect(r).toMatchObject({ chain_id: 'ETH', token_id: 'ETH', type: a.column.startsWith('Value_IN') ? 'Deposit' : r.type });
    }

    // Internal rows carry an extra empty cell each (…,"call",""): read as the header's width.
    const inner = await importFile({ source: file(internal), ...opts });
    expect(inner).toMatchObject({
      preset: 'etherscan-internal',
      rows_total: FACTS[internal]!.rows,
      added: FACTS[internal]!.rows,
      rejected: 0,
    });

    // The token export: the tokens the catalogue knows land; the others are listed, not guessed.
    const tokens = await importFile({ source: file(erc20), ...opts });
    expect(tokens.preset).toBe('etherscan-tokens');
    expect(tokens.added + tokens.rejected).toBe(FACTS[erc20]!.rows);
    expect(tokens.unknown_tokens.reduce((n, t) => n + t.rows, 0)).toBe(tokens.rejected);
    const dai = tokens.unknown_tokens.find((t) => t.symbol === 'DAI')!;
    expect(dai).toMatchObject({ chain_id: 'ETH', contract_address: '0x6b175474e89094c44da98b954eedeac495271d0f', name: 'Dai Stablecoin' });
    expect(tokens.message).toMatch(new RegExp(`${tokens.rejected} rows of ${tokens.unknown_tokens.length} unknown tokens`));
    expect(tokens.rejections[0]!.reason).toMatch(/unknown token: no token with contract 0x/);

    const after = await all({ wallet_id: WALLET });
    const stillNormal = after.filter((r) => normalRecords.some((n) => n.transaction_id === r.transaction_id));
    sameRecords(stillNormal, normalRecords);
    expect(after).toHaveLength(normalRecords.length + inner.added + tokens.added);
    // A hash with both a native and an internal transfer has two records.
    const internalHashes = new Set(after.filter((r) => r.movement > 0 && r.movement < 1_000_000).map((r) => r.hash));
    expect([...internalHashes].some((h) => normalRecords.some((n) => n.hash === h))).toBe(true);

    // Re-importing any of them changes nothing.
    for (const [name, r] of [
      [txlist, normal],
      [internal, inner],
      [erc20, tokens],
    ] as const) {
      const again = await importFile({ source: file(name), ...opts });
      expect([name, again.added, again.updated, again.unchanged]).toEqual([name, 0, 0, r.added]);
    }
    sameRecords(await all({ wallet_id: WALLET }), after);
  });

  it('a failed transfer is Failed whichever column says so: an internal export’s Status (isError) or ErrCode, a normal export’s ErrCode', async () => {
    // The real internal export, its first three rows as written (Status "0", ErrCode "") but for the cells changed here.
    const [head, ...rows] = textOf(internal).split('\n');
    const cut = (row: string, status: string, err: string) => row.replace(/,"0","","call",""$/, `,"${status}","${err}","call",""`);
    expect(rows.slice(0, 3).every((r) => cut(r, 'x', 'y') !== r)).toBe(true);
    const edited = [head, cut(rows[0]!, '1', ''), cut(rows[1]!, '0', 'Reverted'), rows[2]].join('\n');
    await importFile({ source: { name: 'internal.csv', text: edited }, ...opts });
    const hashOf = (row: string) => row.slice(1, 67);
    const inner = byHash(await all({ wallet_id: WALLET }));
    expect([rows[0], rows[1], rows[2]].map((r) => inner.get(hashOf(r!))?.status)).toEqual(['Failed', 'Failed', 'Completed']);

    // A normal export's row with an empty Status but an ErrCode: Failed.
    const [nHead, ...nRows] = textOf(txlist).split('\n');
    const ok = nRows.find((r) => r.includes('"","","') && /"Transfer"$/.test(r))!;
    expect(ok).toBeDefined();
    const failed = ok.replace(/"","","Transfer"$/, '"","Out of gas","Transfer"');
    await importFile({ source: { name: 'txlist.csv', text: [nHead, failed].join('\n') }, ...opts });
    expect(byHash(await all({ wallet_id: WALLET })).get(hashOf(ok))?.status).toBe('Failed');
  });

  it('an unknown token added to the catalogue (symbol, decimal, contract from the file) lets its rows in, amounts with thousands separators exact', async () => {
    const first = await importFile({ source: file(erc20), ...opts });
    const dai = first.unknown_tokens.find((t) => t.symbol === 'DAI')!;
    await service.svc.invoke(
      'catalogue-token-add',
      { chain_id: 'ETH', symbol: dai.symbol, contract_address: dai.contract_address, decimal: 18 },
      meta,
    );
    const again = await importFile({ source: file(erc20), ...opts });
    expect(again.added).toBe(dai.rows);
    expect(again.unknown_tokens.find((t) => t.symbol === 'DAI')).toBeUndefined();
    const daiRows = await all({ wallet_id: WALLET, token_id: 'ETH_DAI' });
    expect(daiRows).toHaveLength(dai.rows);
    // Every DAI row's amount is the file's TokenValue, thousands separators dropped, nothing rounded.
    const lines = textOf(erc20).trim().split('\n').slice(1);
    const raw = lines.filter((l) => l.includes('0x6b175474e89094c44da98b954eedeac495271d0f')).map((l) => l.split('","')[6]!);
    expect(raw.some((v) => v.includes(','))).toBe(true);
    expect(daiRows.map((r) => r.amount).sort()).toEqual(raw.map(plain).sort());
  });

  it('a token symbol never picks a token: a USDC row is USDC by its contract, a look-alike symbol stays unknown', async () => {
    const r = await importFile({ source: file(erc20), ...opts });
    const usdc = await all({ wallet_id: WALLET, token_id: 'ETH_USDC' });
    const rows = textOf(erc20)
      .split('\n')
      .filter((l) => l.toLowerCase().includes('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'));
    expect(usdc).toHaveLength(rows.length);
    // aUSDC, whose symbol ends in USDC, is not taken for USDC.
    expect(r.unknown_tokens.some((t) => t.symbol === 'aUSDC')).toBe(true);
  });
});

describe('the export of an address belongs to one wallet', () => {
  it("an import keeps the export's address as its wallet's; the same export into another wallet is refused and changes nothing; a preview keeps nothing", async () => {
    const name = 'etherscan-0x003dc-txlist.csv';
    const address = FACTS[name]!.walletAddress!;
    const other = '5b1d2c3e-4f50-4a6b-8c7d-9e0f1a2b3c4d';
    await service.svc.invoke('ledger-preview', { source: file(name), wallet_id: WALLET, chain_id: 'ETH' }, meta);
    expect(await service.svc.invoke('wallets-list', {}, meta)).toEqual([]);
    const kept = await importFile({ source: file(name), wallet_id: WALLET, chain_id: 'ETH' });
    // The history keeps how the file was read, and into which wallet.
    const listed = (await service.svc.invoke('imports-list', {}, meta)).list[0]!;
    expect(listed).toMatchObject({ import_id: kept.import_id, wallet_id: WALLET, read_as: kept.read_as });
    expect((await service.svc.invoke('import-get', { import_id: kept.import_id! }, meta)).read_as).toEqual({
      chain_id: 'ETH',
      decimal_separator: '.',
      date_order: null,
      wallet_address: address,
      time_zone: 'UTC',
    });
    const [mine] = await service.svc.invoke('wallets-list', {}, meta);
    expect(mine).toMatchObject({ wallet_id: WALLET, addresses: [{ chain_id: 'ETH', address, label: '' }] });

    const before = await all();
    const twice = await failure(importFile({ source: file(name), wallet_id: other, chain_id: 'ETH' }));
    expect(twice.message).toBe(
      `${name}: this is the export of ${address} on ETH, the address of wallet ${WALLET}: its rows are that wallet's, and imported into another they would be booked twice; import it into that wallet (--wallet-id ${WALLET}), or remove the address from that wallet first; nothing was imported`,
    );
    expect(await all()).toEqual(before);
    // On another chain the address is another wallet's to have: Arbitrum is not Ethereum.
    expect(await importFile({ source: file(name), wallet_id: other, chain_id: 'ARBITRUM_ETH' })).toMatchObject({
      added: FACTS[name]!.rows,
    });
  });
});

describe('BscScan and PolygonScan exports (real): the chain from the coin, the wallet from the rows', () => {
  /** A data row of a fixture (1 = the first after the header), its quoted cells split (these files quote every cell and hold no quote). */
  const cellsOf = (name: string, row: number) => textOf(name).split(/\r?\n/)[row]!.slice(1, -1).split('","');

  it('a transactions export names BNB Smart Chain by its Value_IN(BNB): booked there, never on ETH; a creation went to the contract it made', async () => {
    const name = 'bscscan-0x4435-txlist-head.csv';
    const facts = FACTS[name]!;
    // Every row carries one cell more than the header (…,""), as the explorer writes it.
    expect(FACTS[name]).toMatchObject({ extraTrailingField: true, nativeSymbol: 'BNB' });
    const r = await importFile({ source: file(name), wallet_id: WALLET });
    expect(r).toMatchObject({ preset: 'etherscan', rows_total: facts.rows, added: facts.rows, rejected: 0 });
    // The wallet is the one address on every row: row 1 made it (To empty, ContractAddress the wallet).
    expect(r.read_as).toMatchObject({ chain_id: 'BSC_BNB', decimal_separator: '.', wallet_address: facts.walletAddress });
    const records = await all({ wallet_id: WALLET });
    expect(records).toHaveLength(facts.rows);
    expect(records.every((x) => x.chain_id === 'BSC_BNB' && x.token_id === 'BSC_BNB')).toBe(true);
    expect(
      records
        .filter((x) => x.status === 'Failed')
        .map((x) => x.hash)
        .sort(),
    ).toEqual(facts.failedRows.map((f) => (f as { hash: string }).hash).sort());
    const byTx = byHash(records);
    for (const a of facts.amounts.filter((x) => x.column.startsWith('Value_IN')))
      expect(byTx.get(a.hash)).toMatchObject({ type: 'Deposit', amount: plain(a.raw), to: facts.walletAddress });
    // The creation: a Deposit of nothing into the contract it made; its fee is the deployer's, not the wallet's.
    const creation = cellsOf(name, 1);
    expect([creation[5], creation[6]]).toEqual(['', facts.walletAddress]);
    expect(byTx.get(creation[0]!)).toMatchObject({
      type: 'Deposit',
      amount: '0',
      to: facts.walletAddress,
      fee: '',
      created_at: 1682247893000,
    });
    // A call that moved no value (Method "Withdraw", failed): the address tells its direction, its status is kept.
    const failed = byTx.get('0xfd7f06d25078df4f179288f9f9350c25adf9f9d35fa398cdb0261993c878dac6')!;
    expect(failed).toMatchObject({ type: 'Deposit', status: 'Failed', amount: '0' });

    const again = await importFile({ source: file(name), wallet_id: WALLET });
    expect([again.added, again.updated, again.unchanged]).toEqual([0, 0, facts.rows]);
  });

  it('a BEP-20 export of 2021 ("Value", no Blockno): its chain asked; BUSD-T is BSC_USDT by contract, the unknown tokens listed, then added; one hash in and out of one token is two records', async () => {
    const name = 'bscscan-0xad7b-bep20.csv';
    const facts = FACTS[name]!;
    const asked = await failure(importFile({ source: file(name), wallet_id: WALLET }));
    expect(asked.message).toMatch(/does not say its chain.*give --chain [A-Z_|]*BSC_BNB/);
    expect(await all()).toEqual([]);

    const first = await importFile({ source: file(name), wallet_id: WALLET, chain_id: 'BSC_BNB' });
    expect(first.preset).toBe('etherscan-tokens');
    expect(first.read_as).toMatchObject({ chain_id: 'BSC_BNB', wallet_address: facts.walletAddress });
    // Rows by their ContractAddress cell (the Cake-LP contract is the wallet too, on every row as From or To).
    const rowsOf = (contract: string) =>
      Array.from({ length: facts.rows }, (_, i) => cellsOf(name, i + 1)[6]).filter((c) => c === contract).length;
    const usdt = '0x55d398326f99059ff775485246999027b3197955';
    expect(first.added).toBe(rowsOf(usdt));
    expect(first.unknown_tokens.map((t) => [t.symbol, t.contract_address, t.rows]).sort()).toEqual(
      facts.tokens
        .filter((t) => t.contract !== usdt)
        .map((t) => [t.symbol, t.contract, rowsOf(t.contract)])
        .sort(),
    );
    expect(first.rejected).toBe(facts.rows - first.added);
    expect((await all()).every((x) => x.token_id === 'BSC_USDT')).toBe(true);

    // Each token as the file describes it (symbol, contract); its id is the catalogue's.
    const tokenIds = new Map([[usdt, 'BSC_USDT']]);
    for (const t of first.unknown_tokens) {
      const added = await service.svc.invoke(
        'catalogue-token-add',
        { chain_id: 'BSC_BNB', symbol: t.symbol, contract_address: t.contract_address, decimal: 18 },
        meta,
      );
      tokenIds.set(t.contract_address, added.token_id);
    }
    const second = await importFile({ source: file(name), wallet_id: WALLET, chain_id: 'BSC_BNB' });
    expect(second).toMatchObject({ added: first.rejected, unchanged: first.added, rejected: 0 });
    const records = await all({ wallet_id: WALLET });
    expect(records).toHaveLength(facts.rows);
    // Each amount is the file's Value, thousands separators dropped, nothing rounded, on its own hash and token.
    for (const a of facts.amounts) {
      const [hash, , , from, , , contract] = cellsOf(name, a.row);
      const type = from === facts.walletAddress ? 'Withdrawal' : 'Deposit';
      expect(
        records.filter((x) => x.hash === hash && x.token_id === tokenIds.get(contract!) && x.amount === plain(a.raw) && x.type === type),
      ).toHaveLength(1);
    }
    // Rows 87 and 88: one hash, the same LP token and amount, into the wallet and out of it: two records.
    const [lpHash, , , , , , lpContract] = cellsOf(name, 87);
    expect([cellsOf(name, 88)[0], cellsOf(name, 88)[6]]).toEqual([lpHash, lpContract]);
    expect(
      records
        .filter((x) => x.hash === lpHash && x.token_id === tokenIds.get(lpContract!))
        .map((x) => [x.type, x.amount])
        .sort(),
    ).toEqual([
      ['Deposit', '4538.518959762834869263'],
      ['Withdrawal', '4538.518959762834869263'],
    ]);

    const again = await importFile({ source: file(name), wallet_id: WALLET, chain_id: 'BSC_BNB' });
    expect([again.added, again.updated, again.unchanged]).toEqual([0, 0, facts.rows]);
  });

  it('a row of no value after the rows the import looked at, in a file of two addresses on every row: that row is rejected, naming --wallet-address', async () => {
    const name = 'bscscan-0x4435-txlist-head.csv';
    const [header] = textOf(name).split('\r\n');
    const deposit = cellsOf(name, 2); // 1 BNB from 0x1d42… to the wallet
    const [a, w] = [deposit[4]!, deposit[5]!];
    // Each row between the same two addresses, one way or the other, with a value; the last moves nothing.
    const row = (n: number, from: string, to: string, valueIn: string, valueOut: string) => {
      const cells = [...deposit];
      Object.assign(cells, { 0: `0x${n.toString(16).padStart(64, '0')}`, 4: from, 5: to, 7: valueIn, 8: valueOut });
      return `"${cells.join('","')}"`;
    };
    const rows = Array.from({ length: 1200 }, (_, i) => (i % 2 ? row(i + 1, w, a, '0', '0.5') : row(i + 1, a, w, '1', '0')));
    rows.push(row(1201, a, w, '0', '0'));
    const text = [header, ...rows].join('\r\n');
    const r = await importFile({ source: { name: 'two-addresses.csv', text }, wallet_id: WALLET });
    expect(r).toMatchObject({ added: 1200, rejected: 1 });
    expect(r.rejections[0]).toMatchObject({
      row_number: 1201,
      column: 'Value_IN(BNB)',
      value: '0',
      reason:
        "Value_IN(BNB) and Value_OUT(BNB) are both 0, so only the wallet's address tells a deposit from a withdrawal: give it (--wallet-address)",
    });
    const again = await importFile({ source: { name: 'two-addresses.csv', text }, wallet_id: WALLET, wallet_address: w });
    expect(again).toMatchObject({ added: 1, unchanged: 1200, rejected: 0 });
  });

  it('a PolygonScan export from a token’s page (DATA, filtered by an address): chain and token asked; the token added and given, its amounts exact on Polygon', async () => {
    const name = 'polygonscan-token-page-data-0x63f7-head.csv';
    const facts = FACTS[name]!;
    const detect = await service.svc.invoke('ledger-detect', { source: file(name), wallet_id: WALLET }, meta);
    expect(detect.preset).toBe('etherscan-token-page');
    expect(detect.needs.map((n) => n.field)).toEqual(['chain_id', 'token_id']);
    expect(detect.needs[0]!.options).toContain('MATIC');
    // The catalogue has no DATA on Polygon: added as the explorer's page shows it, then named.
    const data = await service.svc.invoke(
      'catalogue-token-add',
      { chain_id: 'MATIC', symbol: 'DATA', contract_address: '0x3a9a81d576d83ff21f26f325066054540720fc34', decimal: 18 },
      meta,
    );
    const r = await importFile({ source: file(name), wallet_id: WALLET, token_id: data.token_id });
    expect(r).toMatchObject({ preset: 'etherscan-token-page', added: facts.rows, rejected: 0 });
    expect(r.read_as).toMatchObject({ chain_id: 'MATIC', wallet_address: facts.walletAddress });
    const records = await all({ wallet_id: WALLET });
    expect(records.every((x) => x.chain_id === 'MATIC' && x.token_id === data.token_id && x.type === 'Deposit')).toBe(true);
    const byTx = byHash(records);
    expect(facts.amounts.map((a) => [a.raw, byTx.get(a.hash)?.amount])).toEqual(facts.amounts.map((a) => [a.raw, plain(a.raw)]));
    expect(byTx.get('0x4a097de9ddcfc92ec3ad2a4dffb839bf15fb6b620f14f81749ae7d278bbcefe2')?.amount).toBe('2047940.438159170612749697');
    const again = await importFile({ source: file(name), wallet_id: WALLET, token_id: data.token_id });
    expect([again.added, again.updated, again.unchanged]).toEqual([0, 0, facts.rows]);
  });

  it('a contract’s export where its deployer is on every row too: the wallet is asked, both offered; given, the creation went to the contract', async () => {
    const name = 'etherscan-0x023c-txlist-transaction-hash-header.csv';
    const facts = FACTS[name]!;
    // Every value is 0 (calls that paid only fees): only the address says which way each went.
    const detect = await service.svc.invoke('ledger-detect', { source: file(name), wallet_id: WALLET, chain_id: 'ETH' }, meta);
    expect(detect.needs).toEqual([
      expect.objectContaining({
        field: 'wallet_address',
        flag: '--wallet-address',
        options: expect.arrayContaining(['0xde910777c787903f78c89e7a0bf7f4c435cbb1fe', facts.walletAddress]),
      }),
    ]);
    expect(detect.needs[0]!.reason).toMatch(
      /some of its rows move nothing either way \(Value_IN\(ETH\) and Value_OUT\(ETH\) both 0\), and 2 addresses are on every one/,
    );
    const refused = await failure(importFile({ source: file(name), wallet_id: WALLET, chain_id: 'ETH' }));
    expect(refused.message).toMatch(/give --wallet-address 0x/);
    expect(await all()).toEqual([]);

    const r = await importFile({ source: file(name), wallet_id: WALLET, chain_id: 'ETH', wallet_address: facts.walletAddress });
    expect(r).toMatchObject({ added: facts.rows, rejected: 0 });
    const records = byHash(await all());
    const creation = records.get('0x5dc6c4ba75fd98859bce4cbcae13e9cc43195bea1e731c751d67ab52871486f7')!;
    expect(creation).toMatchObject({ type: 'Deposit', to: facts.walletAddress, amount: '0', fee: '' });
  });
});

describe('files that do not say everything', () => {
  it('an Etherscan-family file in ETH needs its chain; the same file as Arbitrum is other records', async () => {
    const name = 'etherscan-0xf98c-txlist.csv';
    const err = await failure(importFile({ source: file(name), wallet_id: WALLET }));
    expect(err.message).toMatch(/values are in ETH, the coin of ETH, ARBITRUM_ETH, OPT_ETH, BASE_ETH.*give --chain/);
    const detect = await service.svc.invoke('ledger-detect', { source: file(name) }, meta);
    expect(detect.needs).toEqual([
      expect.objectContaining({ field: 'chain_id', flag: '--chain', options: ['ETH', 'ARBITRUM_ETH', 'OPT_ETH', 'BASE_ETH'] }),
      expect.objectContaining({ field: 'wallet_id', flag: '--wallet', options: [] }),
    ]);
    const wrong = await failure(importFile({ source: file(name), wallet_id: WALLET, chain_id: 'BSC_BNB' }));
    expect(wrong.message).toMatch(/values are in ETH, but BSC_BNB's coin is BNB/);
    const eth = await importFile({ source: file(name), wallet_id: WALLET, chain_id: 'ETH' });
    const arb = await importFile({ source: file(name), wallet_id: WALLET, chain_id: 'ARBITRUM_ETH' });
    expect([eth.added, arb.added]).toEqual([9, 9]);
    expect((await all({ chain_id: 'ARBITRUM_ETH' })).every((r) => r.token_id === 'ARBITRUM_ETH')).toBe(true);
  });

  it('an explorer\'s advanced-filter transaction list (Value "0 ETH", status text, no Unix time): its chain asked, failures kept', async () => {
    const name = 'etherscan-transaction-list-advanced-0xeb31.csv';
    const detect = await service.svc.invoke('ledger-detect', { source: file(name), wallet_id: WALLET }, meta);
    expect(detect).toMatchObject({ preset: 'etherscan-list', needs: [expect.objectContaining({ field: 'chain_id' })] });
    // The chains of ETH are offered; the form for a chain not listed suggests no id the catalogue already has.
    expect(detect.needs[0]).toMatchObject({
      options: ['ETH', 'ARBITRUM_ETH', 'OPT_ETH', 'BASE_ETH'],
      add_chain: { chain_id: '', native_symbol: 'ETH' },
    });
    const r = await importFile({ source: file(name), wallet_id: WALLET, chain_id: 'ETH' });
    expect(r).toMatchObject({ rows_total: FACTS[name]!.rows, added: FACTS[name]!.rows, rejected: 0 });
    expect(r.read_as.wallet_address?.toLowerCase()).toBe(FACTS[name]!.walletAddress);
    const records = await all();
    expect(records.filter((x) => x.status === 'Failed')).toHaveLength(FACTS[name]!.failedRows.length);
    // "2020-03-16 03:55:26" in UTC; the fee counts on the wallet's own transactions only.
    const first = records.find((x) => x.hash === '0x7a1c5e8b00cb3180160a7216ebab0d124a28c3d953893f053a0f5369b2f7f6af')!;
    expect(first).toMatchObject({ amount: '0', type: 'Deposit', fee: '', created_at: Date.UTC(2020, 2, 16, 3, 55, 26), token_id: 'ETH' });
    // A value in another coin is refused, never read as a number of ETH.
    const other = textOf(name).replace('"0 ETH","0.00009241"', '"5 USDT","0.00009241"');
    const bad = await importFile({ source: { name: 'other.csv', text: other }, wallet_id: WALLET, chain_id: 'ETH' });
    expect(bad.rejections).toEqual([expect.objectContaining({ column: 'Value', value: '5 USDT', reason: '"5 USDT" is in USDT, not ETH' })]);
  });

  it('an export with a ChainId column (multichain explorers) names its chain: Arbitrum and Avalanche without --chain', async () => {
    // The header of Snowtrace's current export (ChainId, Chain, Value(...) at the end), one row built on it.
    const header = (coin: string) =>
      `"Transaction Hash","Blockno","UnixTimestamp","DateTime (UTC)","From","To","ContractAddress","Value_IN(${coin})","Value_OUT(${coin})","CurrentValue/${coin}","TxnFee(${coin})","TxnFee(USD)","Historical $Price/${coin}","Status","ErrCode","Method","ChainId","Chain","Value(${coin})"`;
    const row = (n: number, chainId: string, chain: string) =>
      `"0x${String(n).padStart(64, 'e')}","1","1733313176","2024-12-04 11:52:56","0x1111111111111111111111111111111111111111","0xd8da6bf26964af9d7eed9e03e53415d37aa96045","","1.25","0","0","0.0001","0","1","","","Transfer","${chainId}","${chain}","1.25"`;
    const arb = await importFile({
      source: { name: 'arb.csv', text: [header('ETH'), row(1, '42161', 'Arbitrum One')].join('\n') },
      wallet_id: WALLET,
    });
    expect(arb).toMatchObject({ added: 1, read_as: { chain_id: 'ARBITRUM_ETH' } });
    const avax = await importFile({
      source: { name: 'avax.csv', text: [header('AVAX'), row(2, '43114', 'Avalanche C-Chain')].join('\n') },
      wallet_id: WALLET,
    });
    expect(avax).toMatchObject({ added: 1, read_as: { chain_id: 'AVAXC' } });
    // A ChainId whose coin is not the file's (56 is BNB Smart Chain, the values say ETH) decides nothing: the chain is asked for.
    const odd = await failure(
      importFile({ source: { name: 'odd.csv', text: [header('ETH'), row(3, '56', 'BNB')].join('\n') }, wallet_id: WALLET }),
    );
    expect(odd.message).toMatch(/give --chain/);
    expect((await all()).map((r) => [r.chain_id, r.token_id, r.amount, r.type]).sort()).toEqual([
      ['ARBITRUM_ETH', 'ARBITRUM_ETH', '1.25', 'Deposit'],
      ['AVAXC', 'AVAXC', '1.25', 'Deposit'],
    ]);
  });

  it('Mantlescan (Value_IN(MNT)): no chain has MNT until the user adds Mantle, then it is chosen from the file', async () => {
    const name = 'mantlescan-anonymized-txlist.csv';
    const err = await failure(importFile({ source: file(name), wallet_id: WALLET }));
    expect(err.message).toMatch(/no chain in the catalogue has the coin MNT: add the chain/);
    // What the file says of the chain to add: an EVM export (Etherscan's columns) whose coin is MNT.
    const detect = await service.svc.invoke('ledger-detect', { source: file(name), wallet_id: WALLET }, meta);
    expect(detect.needs).toEqual([
      expect.objectContaining({
        field: 'chain_id',
        options: [],
        add_chain: { chain_id: 'MNT', chain_identifier: 'ETH', native_symbol: 'MNT', native_decimal: 18 },
      }),
    ]);
    await service.svc.invoke(
      'catalogue-chain-add',
      {
        chain_id: 'MANTLE',
        chain_identifier: 'ETH',
        name: 'Mantle',
        native_symbol: 'MNT',
        native_decimal: 18,
        explorer_tx_url: 'https://mantlescan.xyz/tx/{hash}',
      },
      meta,
    );
    const r = await importFile({ source: file(name), wallet_id: WALLET });
    expect(r).toMatchObject({ added: FACTS[name]!.rows, read_as: { chain_id: 'MANTLE' } });
    expect((await all()).every((x) => x.chain_id === 'MANTLE' && x.token_id === 'MANTLE')).toBe(true);
  });

  it('a token page’s export names neither token nor chain: both are asked for; the token given names its chain, and its records are those of the ERC-20 export', async () => {
    const name = 'derived-token-page-etherscan-0x003dc-usdc.csv';
    const facts = FACTS[name]!;
    const detect = await service.svc.invoke('ledger-detect', { source: file(name) }, meta);
    expect(detect.preset).toBe('etherscan-token-page');
    expect(detect.needs.map((n) => n.field)).toEqual(['chain_id', 'token_id', 'wallet_id']);
    expect(detect.needs[0]).toMatchObject({ flag: '--chain', options: expect.arrayContaining(['ETH', 'BSC_BNB', 'ARBITRUM_ETH']) });
    // The tokens of every chain it could be from are offered: the one chosen names the chain.
    expect(detect.needs[1]).toMatchObject({ flag: '--token', options: expect.arrayContaining(['ETH_USDC', 'BSC_USDT', 'ARBITRUM_USDC']) });
    expect(detect.needs[1]!.options).not.toContain('TRON_USDT');
    const asked = await failure(importFile({ source: file(name), wallet_id: WALLET }));
    expect(asked.message).toMatch(
      /does not say its chain \(an etherscan-token-page export .*names no token .*\(give --token [A-Z_|]*ETH_USDC[A-Z_|]*\); nothing was imported$/,
    );
    expect(await all()).toEqual([]);

    // The wallet's address is the one on every row; the token says the chain (USDC of Ethereum).
    const r = await importFile({ source: file(name), wallet_id: WALLET, token_id: 'ETH_USDC' });
    expect(r).toMatchObject({ preset: 'etherscan-token-page', added: facts.rows, rejected: 0 });
    expect(r.read_as).toMatchObject({ chain_id: 'ETH', decimal_separator: '.', wallet_address: facts.walletAddress });
    const records = byHash(await all({ wallet_id: WALLET }));
    for (const a of facts.amounts)
      expect(records.get(a.hash)).toMatchObject({ chain_id: 'ETH', token_id: 'ETH_USDC', amount: plain(a.raw) });
    expect(records.get('0xb843b8e860bd9b947f66a795799bd984a40199db0d79b549372b5fe2fcaec5f2')).toMatchObject({
      type: 'Deposit',
      amount: '4506.611832',
    });
    expect(records.get('0xcb0a6f30491b6458b6ca14ad4c890ed0fb9daeec703517ba4cb46f1a5085a243')).toMatchObject({
      type: 'Withdrawal',
      amount: '1000',
    });
    // A token of another chain than the one given is refused, nothing imported.
    expect((await failure(importFile({ source: file(name), wallet_id: WALLET, token_id: 'ETH_USDC', chain_id: 'BSC_BNB' }))).message).toBe(
      'token_id: ETH_USDC is on ETH, not BSC_BNB',
    );

    // The wallet's ERC-20 export holds the same transfers: its USDC rows are these records, unchanged.
    const before = await all({ wallet_id: WALLET });
    const tokens = await importFile({ source: file('etherscan-0x003dc-erc20.csv'), wallet_id: WALLET, chain_id: 'ETH' });
    const usdc = (await all({ wallet_id: WALLET })).filter((x) => x.token_id === 'ETH_USDC');
    sameRecords(usdc, before);
    expect(tokens.added).toBe(FACTS['etherscan-0x003dc-erc20.csv']!.rows - tokens.rejected - facts.rows);
  });

  it('an old Tronscan TRC-20 export names no token and is not of one wallet: it asks for --token and --wallet-address', async () => {
    const name = 'tronscan-trc20-usdt-contract-transfers-2022-head.csv';
    const detect = await service.svc.invoke('ledger-detect', { source: file(name) }, meta);
    expect(detect.preset).toBe('tronscan');
    // The chain is TRON (the only chain of the family): its tokens are offered.
    expect(detect.needs.map((n) => n.field)).toEqual(['token_id', 'time_zone', 'wallet_address', 'wallet_id']);
    expect(detect.needs[0]).toMatchObject({ flag: '--token', options: ['TRON', 'TRON_USDT'] });
    // block_ts names no zone, and Tronscan's newer export shows UTC+8 beside UTC: the zone is asked, not assumed.
    expect(detect.needs[1]).toMatchObject({ flag: '--time-zone', options: ['UTC', '+08:00'], reason: expect.stringMatching(/block_ts/) });
    expect(detect.problem).toBeNull();
    const noToken = await failure(
      importFile({ source: file(name), wallet_id: WALLET, wallet_address: 'TLKR8DkuCaQmYk3hou4ofJPjKXWTTHaqEY', time_zone: 'UTC' }),
    );
    expect(noToken.message).toMatch(/names no token.*\(give --token TRON\|TRON_USDT\); nothing was imported$/);
    const noZone = await failure(
      importFile({ source: file(name), wallet_id: WALLET, wallet_address: 'TLKR8DkuCaQmYk3hou4ofJPjKXWTTHaqEY', token_id: 'TRON_USDT' }),
    );
    expect(noZone.message).toMatch(/its times \(block_ts\) name no time zone.*\(give --time-zone UTC\|\+08:00\); nothing was imported$/);
    // Read at UTC+8, the same cells are eight hours earlier.
    const east = await service.svc.invoke(
      'ledger-detect',
      {
        source: file(name),
        wallet_id: WALLET,
        wallet_address: 'TLKR8DkuCaQmYk3hou4ofJPjKXWTTHaqEY',
        token_id: 'TRON_USDT',
        time_zone: '+08:00',
      },
      meta,
    );
    expect(east.read_as.time_zone).toBe('UTC+08:00');
    expect(east.parsed[0]!.values?.created_at).toBe(String(Date.UTC(2022, 2, 17, 6, 10)));
    const r = await importFile({
      source: file(name),
      wallet_id: WALLET,
      wallet_address: 'TLKR8DkuCaQmYk3hou4ofJPjKXWTTHaqEY',
      token_id: 'TRON_USDT',
      time_zone: 'UTC',
    });
    const lines = textOf(name).trim().split(/\r?\n/).slice(1);
    const mine = lines.filter((l) => l.includes('TLKR8DkuCaQmYk3hou4ofJPjKXWTTHaqEY'));
    expect(r).toMatchObject({ added: mine.length, rejected: lines.length - mine.length });
    const first = (await all({ search: lines[0]!.split(',')[0] }))[0]!;
    // 2022/03/17 14:10:00, read in UTC as the report says; quant 679.470000 exactly. The file was
    // exported within a minute of its blocks: confirmed false on every row, so Confirming, not Completed.
    expect(first).toMatchObject({
      type: 'Withdrawal',
      token_id: 'TRON_USDT',
      amount: '679.47',
      created_at: Date.UTC(2022, 2, 17, 14, 10),
      status: 'Confirming',
    });
    expect(r.read_as.time_zone).toBe('UTC');
  });

  it('the time zone is stated as UTC, an offset or an IANA name; anything else is refused naming time_zone', async () => {
    const name = 'tronscan-trc20-usdt-contract-transfers-2022-head.csv';
    const base = { source: file(name), wallet_id: WALLET, wallet_address: 'TLKR8DkuCaQmYk3hou4ofJPjKXWTTHaqEY', token_id: 'TRON_USDT' };
    const read = async (time_zone: string) => {
      const d = await service.svc.invoke('ledger-detect', { ...base, time_zone }, meta);
      expect(d.needs).toEqual([]);
      return [d.read_as.time_zone, Number(d.parsed[0]!.values?.created_at)];
    };
    // 2022/03/17 14:10:00 as written.
    expect(await read('UTC')).toEqual(['UTC', Date.UTC(2022, 2, 17, 14, 10)]);
    expect(await read('UTC+8')).toEqual(['UTC+08:00', Date.UTC(2022, 2, 17, 6, 10)]);
    expect(await read('-05:30')).toEqual(['UTC-05:30', Date.UTC(2022, 2, 17, 19, 40)]);
    expect(await read('Asia/Shanghai')).toEqual(['Asia/Shanghai', Date.UTC(2022, 2, 17, 6, 10)]);
    for (const zone of ['Mars/Olympus', '+25:00']) {
      const err = await failure(importFile({ ...base, time_zone: zone }));
      expect(err).toMatchObject({ code: 1002, message: expect.stringMatching(/^time_zone: /) });
      expect((await service.svc.invoke('ledger-detect', { ...base, time_zone: zone }, meta)).problem).toMatch(/^time_zone: /);
    }
    expect(await all()).toEqual([]);
  });

  it('a Tronscan row is Confirming while its block is not confirmed, Completed once it is, Failed when its contract call failed', async () => {
    const name = 'tronscan-trc20-usdt-contract-transfers-2022-head.csv';
    const address = 'TGx3Lyc6rR14keStqfAK8u37euNFaq8uZ4';
    const [head, ...lines] = textOf(name).trim().split(/\r?\n/);
    const mine = lines.filter((l) => l.includes(address));
    expect(mine.length).toBeGreaterThan(2);
    const opts = { wallet_id: WALLET, wallet_address: address, token_id: 'TRON_USDT', time_zone: 'UTC' };
    const statuses = async () => {
      const status = new Map((await all()).map((x) => [x.hash, x.status]));
      return mine.map((l) => status.get(l.split(',')[0]!));
    };
    // As exported, within a minute of the blocks: confirmed false, contractRet SUCCESS on every row.
    expect(await importFile({ source: { name: 'as-exported.csv', text: [head, ...mine].join('\r\n') }, ...opts })).toMatchObject({
      added: mine.length,
    });
    expect(await statuses()).toEqual(mine.map(() => 'Confirming'));
    // The same rows once confirmed, the second one's call reverted.
    const later = mine.map((l, i) => l.replace(',false,SUCCESS,', i === 1 ? ',true,REVERT,' : ',true,SUCCESS,'));
    expect(later.every((l, i) => l !== mine[i])).toBe(true);
    const again = await importFile({ source: { name: 'later.csv', text: [head, ...later].join('\r\n') }, ...opts });
    expect(again).toMatchObject({ updated: mine.length, rejected: 0 });
    expect(await statuses()).toEqual(mine.map((_, i) => (i === 1 ? 'Failed' : 'Completed')));
  });

  it('the same Tronscan file with day-first dates reads the same moments, the order found from a day above 12', async () => {
    const opts = { wallet_id: WALLET, wallet_address: 'TLKR8DkuCaQmYk3hou4ofJPjKXWTTHaqEY', token_id: 'TRON_USDT', time_zone: 'UTC' };
    const d = await importFile({ source: file('derived-dayfirst-tronscan-trc20-usdt-contract-transfers-2022-head.csv'), ...opts });
    expect(d.read_as.date_order).toBe('day_first');
    const fromDayFirst = await all();
    const again = await importFile({ source: file('tronscan-trc20-usdt-contract-transfers-2022-head.csv'), ...opts });
    // Same ids, same values: every record unchanged (the original has seconds :00 as the derived file drops them).
    expect(again).toMatchObject({ added: 0, updated: 0, unchanged: d.added });
    sameRecords(await all(), fromDayFirst);
  });

  it('day-first or month-first cannot be told from 03/04/2024 alone: the import asks, and reads what the user says', async () => {
    const csv = [
      'Tx Hash,block_ts,from,to,value,tokenAddress',
      `${'ab'.repeat(32)},03/04/2024 10:00,TLKR8DkuCaQmYk3hou4ofJPjKXWTTHaqEY,TEtT9hSy842BCw8PynqdppfH5iEX1UnFG9,5,`,
    ].join('\n');
    const source = { name: 'trx.csv', text: csv };
    const address = { wallet_id: WALLET, wallet_address: 'TLKR8DkuCaQmYk3hou4ofJPjKXWTTHaqEY' };
    const err = await failure(importFile({ source, ...address }));
    expect(err.message).toMatch(/dates like "03\/04\/2024 10:00" can be day first or month first.*--date-order/);
    await importFile({ source, ...address, date_order: 'day_first', time_zone: 'UTC' });
    expect((await all())[0]!.created_at).toBe(Date.UTC(2024, 3, 3, 10));
  });
});

describe('files saved in other locales and edited in Excel', () => {
  it('a token export sorted in a spreadsheet, so that two DAI transfers of one transaction no longer follow each other, fails as a whole and changes nothing; sorted without such a pair, it books what the original does', async () => {
    const name = 'etherscan-0x003dc-erc20.csv';
    const [head, ...lines] = textOf(name).trim().split('\n');
    const cell = (line: string, i: number) => line.split('","')[i]!;
    // An A-Z sort of the TokenValue column, as a spreadsheet does it.
    const sorted = [...lines].sort((a, b) => (cell(a, 6) < cell(b, 6) ? -1 : cell(a, 6) > cell(b, 6) ? 1 : 0));
    const opts = { wallet_id: WALLET, chain_id: 'ETH' };
    await service.svc.invoke(
      'catalogue-token-add',
      { chain_id: 'ETH', contract_address: '0x6b175474e89094c44da98b954eedeac495271d0f', symbol: 'DAI', decimal: 18 },
      meta,
    );
    const original = await importFile({ source: file(name), ...opts });
    const records = await all();
    const dai = records.filter((r) => r.token_id === 'ETH_DAI');
    // One transaction with two DAI withdrawals (9.5 and 0.5): told apart by their order alone.
    const pair = dai.filter((r) => r.hash === '0x011983c8ff3e8691b23fadc964eac279227ed568fe0f8feeb5f6cc236e796c91');
    expect(pair.map((r) => r.amount).sort()).toEqual(['0.5', '9.5']);

    const err = await failure(importFile({ source: { name: 'sorted.csv', text: [head, ...sorted].join('\n') }, ...opts }));
    expect(err.message).toMatch(
      /^sorted\.csv: data rows \d+ and \d+ are two transfers of ETH_DAI of transaction 0x[0-9a-f]{64} with other transactions' rows between them: the rows are not in the explorer's order/,
    );
    expect(await all()).toEqual(records);

    // The same sort of a file whose transactions carry one transfer of each token: nothing to tell apart, the same records.
    const small = 'etherscan-0xf98c-erc20.csv';
    const [smallHead, ...smallLines] = textOf(small).trim().split(/\r?\n/);
    const smallSorted = [...smallLines].sort((a, b) => (cell(a, 6) < cell(b, 6) ? -1 : 1));
    expect(smallSorted).not.toEqual(smallLines);
    const first = await importFile({ source: { name: 'small-sorted.csv', text: [smallHead, ...smallSorted].join('\n') }, ...opts });
    expect(await importFile({ source: file(small), ...opts })).toMatchObject({
      added: 0,
      updated: 0,
      unchanged: first.added + first.unchanged,
    });
    expect(original.added).toBeGreaterThan(0);
  });

  it('a totals row a spreadsheet added under the table tells nothing of the wallet: the wallet is still found, that row alone rejected', async () => {
    const name = 'derived-eu-excel-etherscan-0xf98c-txlist.csv';
    const text = `${textOf(name)}Total;;;;;;;5,5;0,468064038;;0,0123;;;;;\r\n`;
    const r = await importFile({ source: { name: 'with-totals.csv', text }, wallet_id: WALLET, chain_id: 'ETH' });
    expect(r).toMatchObject({
      rows_total: 10,
      added: 9,
      rejected: 1,
      read_as: { wallet_address: FACTS['etherscan-0xf98c-txlist.csv']!.walletAddress },
    });
    expect(r.rejections[0]!.row_number).toBe(10);
    expect(await importFile({ source: file('etherscan-0xf98c-txlist.csv'), wallet_id: WALLET, chain_id: 'ETH' })).toMatchObject({
      unchanged: 9,
    });
  });

  it('a transaction list whose DateTime a spreadsheet rewrote day first (16.03.2020 03:55:26) reads the same moments', async () => {
    const name = 'etherscan-transaction-list-advanced-0xeb31.csv';
    const original = await importFile({ source: file(name), wallet_id: WALLET, chain_id: 'ETH' });
    const saved = textOf(name).replace(/"(\d{4})-(\d{2})-(\d{2}) (\d{2}:\d{2}:\d{2})"/g, '"$3.$2.$1 $4"');
    expect(saved).toContain('"16.03.2020 03:55:26"');
    const again = await importFile({ source: { name: 'resaved.csv', text: saved }, wallet_id: WALLET, chain_id: 'ETH' });
    expect(again).toMatchObject({ rejected: 0, added: 0, updated: 0, unchanged: original.added, read_as: { date_order: 'day_first' } });
  });

  it('a European Excel copy (semicolons, decimal commas, CRLF) books the same records as the explorer’s file', async () => {
    const euro = await importFile({ source: file('derived-eu-excel-etherscan-0xf98c-txlist.csv'), wallet_id: WALLET, chain_id: 'ETH' });
    expect(euro).toMatchObject({ rows_total: 9, added: 9, rejected: 0, read_as: { decimal_separator: ',' } });
    const fromEuro = await all();
    const original = await importFile({ source: file('etherscan-0xf98c-txlist.csv'), wallet_id: WALLET, chain_id: 'ETH' });
    expect(original).toMatchObject({ added: 0, updated: 0, unchanged: 9 });
    expect(byHash(fromEuro).get('0x0a11ffa605919dd2cc1524a0fc3de9b32a78678ccdae8aa91439c6353440503e')!.amount).toBe('5.061643');
  });

  it.each([
    ['CRLF, then rows added with LF', (i: number) => (i < 4 ? '\r\n' : '\n')],
    ['LF, then rows added with CRLF', (i: number) => (i < 4 ? '\n' : '\r\n')],
  ])('the European copy with its line ends mixed (%s) books the same records as the explorer’s file', async (_what, ending) => {
    const name = 'derived-eu-excel-etherscan-0xf98c-txlist.csv';
    const lines = textOf(name).split('\r\n');
    const mixed = lines.map((l, i) => (i < lines.length - 1 ? l + ending(i) : l)).join('');
    expect(mixed).toMatch(/[^\r]\n/);
    expect(mixed).toContain('\r\n');
    const r = await importFile({ source: { name: 'appended.csv', text: mixed }, wallet_id: WALLET, chain_id: 'ETH' });
    expect(r).toMatchObject({ rows_total: 9, added: 9, rejected: 0 });
    const original = await importFile({ source: file('etherscan-0xf98c-txlist.csv'), wallet_id: WALLET, chain_id: 'ETH' });
    expect(original).toMatchObject({ added: 0, updated: 0, unchanged: 9 });
  });

  it('the ERC-20 copy with decimal commas and dot thousands (3.067,671) reads 3067.671, as the original 3,067.671', async () => {
    const opts = { wallet_id: WALLET, chain_id: 'ETH' };
    await service.svc.invoke(
      'catalogue-token-add',
      { chain_id: 'ETH', symbol: 'DAI', contract_address: '0x6b175474e89094c44da98b954eedeac495271d0f', decimal: 18 },
      meta,
    );
    const euro = await importFile({ source: file('derived-eu-excel-etherscan-0x003dc-erc20.csv'), ...opts });
    expect(euro.read_as.decimal_separator).toBe(',');
    const fromEuro = await all({ token_id: 'ETH_DAI' });
    const original: ImportReport = await importFile({ source: file('etherscan-0x003dc-erc20.csv'), ...opts });
    expect(original).toMatchObject({ added: 0, updated: 0, unchanged: euro.added });
    sameRecords(await all({ token_id: 'ETH_DAI' }), fromEuro);
  });

  it('a trailing comma on every data row (the header without one) is read as the header’s width', async () => {
    const lines = textOf('etherscan-0xf98c-txlist.csv').split('\r\n');
    const trailing = lines.map((l, i) => (i > 0 && l !== '' ? `${l},` : l)).join('\r\n');
    const r = await importFile({ source: { name: 'trailing.csv', text: trailing }, wallet_id: WALLET, chain_id: 'ETH' });
    expect(r).toMatchObject({ rows_total: 9, added: 9, rejected: 0 });
  });

  it('an explorer export with an amount in scientific notation (a spreadsheet wrote it, maybe rounded) rejects that row with the reason; the rest land', async () => {
    const name = 'etherscan-0xf98c-txlist.csv';
    const lines = textOf(name).split('\r\n');
    const at = lines.findIndex((l) => l.includes('"0.09"'));
    lines[at] = lines[at]!.replace('"0.09"', '"9.00E-02"');
    const r = await importFile({ source: { name: 'resaved.csv', text: lines.join('\r\n') }, wallet_id: WALLET, chain_id: 'ETH' });
    expect(r).toMatchObject({ rows_total: FACTS[name]!.rows, added: FACTS[name]!.rows - 1, rejected: 1 });
    expect(r.rejections).toEqual([
      {
        row_number: at,
        column: 'Value_IN(ETH)',
        value: '9.00E-02',
        reason: expect.stringMatching(
          /^"9\.00E-02" is in scientific notation, .*may have rounded the number; import the explorer's own file/,
        ),
      },
    ]);
    expect(await all({ search: FACTS[name]!.amounts[0]!.hash })).toEqual([]);
  });

  it('a row with both Value_IN and Value_OUT non-zero is rejected, naming both and showing the value read', async () => {
    const name = 'etherscan-0xf98c-txlist.csv';
    const lines = textOf(name).split('\r\n');
    const at = lines.findIndex((l) => l.includes('"0.09","0"'));
    lines[at] = lines[at]!.replace('"0.09","0"', '"0.09","0.01"');
    const r = await importFile({ source: { name: 'edited.csv', text: lines.join('\r\n') }, wallet_id: WALLET, chain_id: 'ETH' });
    expect(r).toMatchObject({ added: FACTS[name]!.rows - 1, rejected: 1 });
    expect(r.rejections).toEqual([
      { row_number: at, column: 'Value_IN(ETH)', value: '0.09', reason: 'both Value_IN(ETH) and Value_OUT(ETH) are non-zero' },
    ]);
  });

  it('a file with decimal points in some amounts and decimal commas in others: the separator is asked, nothing imported until said; then the others are rejected', async () => {
    const lines = textOf('etherscan-0xf98c-txlist.csv').split('\r\n');
    lines[2] = lines[2]!.replace('"5.061643"', '"5,061643"');
    const source = { name: 'mixed.csv', text: lines.join('\r\n') };
    const err = await failure(importFile({ source, wallet_id: WALLET, chain_id: 'ETH' }));
    expect(err.message).toMatch(
      /amounts disagree on the decimal separator .*: say which the file uses, .*\(give --decimal-separator \.\|,\)/,
    );
    expect(await all()).toHaveLength(0);
    // The dialog asks it among its questions, with both separators to choose from.
    const detect = await service.svc.invoke('ledger-detect', { source, wallet_id: WALLET, chain_id: 'ETH' }, meta);
    expect(detect.problem).toBeNull();
    expect(detect.needs).toEqual([
      expect.objectContaining({ field: 'decimal_separator', options: ['.', ','], reason: expect.stringMatching(/^its amounts disagree/) }),
    ]);
    // Said: the amount written the other way is rejected, never read as another number.
    const r = await importFile({ source, wallet_id: WALLET, chain_id: 'ETH', decimal_separator: '.' });
    expect(r).toMatchObject({ rows_total: 9, added: 8, rejected: 1 });
    expect(r.rejections[0]).toMatchObject({ row_number: 2, value: '5,061643' });
  });

  it('amounts like 1,234 alone are asked about: --decimal-separator decides', async () => {
    const csv = [
      'Tx Hash,blockTime(UTC),from,to,value,tokenAddress',
      `${'cd'.repeat(32)},2024-04-03 10:00:00,TLKR8DkuCaQmYk3hou4ofJPjKXWTTHaqEY,TEtT9hSy842BCw8PynqdppfH5iEX1UnFG9,"1,234",`,
    ].join('\n');
    const source = { name: 'trx.csv', text: csv };
    const address = { wallet_id: WALLET, wallet_address: 'TLKR8DkuCaQmYk3hou4ofJPjKXWTTHaqEY' };
    const detect = await service.svc.invoke('ledger-detect', { source, ...address }, meta);
    expect(detect.needs).toEqual([expect.objectContaining({ field: 'decimal_separator', options: ['.', ','] })]);
    expect(detect.parsed).toEqual([]);
    const asDecimal = await service.svc.invoke('ledger-detect', { source, ...address, decimal_separator: ',' }, meta);
    expect(asDecimal.parsed[0]).toMatchObject({ values: { amount: '1.234' }, raw_amount: '1,234' });
    await importFile({ source, ...address, decimal_separator: '.' });
    expect((await all())[0]!.amount).toBe('1234');
  });
});

describe('exchange histories, through a mapping', () => {
  it('Binance: deposits land with exact amounts (0.00004300 is 0.000043, 1.00000000 is 1); trades, fees and coins the catalogue lacks are rejected with the reason, not booked', async () => {
    const name = 'binance-transaction-history.csv';
    const mapping = {
      columns: { created_at: 'UTC_Time', amount: 'Change', type: 'Operation', token_symbol: 'Coin' },
      constants: { wallet_id: WALLET, chain_id: 'ETH', status: 'Completed' },
      values: { type: { Deposit: 'Deposit', Withdraw: 'Withdrawal' } },
      signed_amounts: true,
      id_fields: ['created_at', 'token_symbol', 'amount'],
    };
    const r = await importFile({ source: file(name), mapping });
    const lines = textOf(name).trim().split('\n').slice(1);
    const deposits = lines.filter((l) => l.includes('"Deposit","ETH"'));
    expect(r).toMatchObject({
      preset: 'custom',
      rows_total: lines.length,
      added: deposits.length,
      rejected: lines.length - deposits.length,
    });
    expect(r.rejections.find((x) => x.value === 'Sell')!.reason).toBe('"Sell" is not a type (Deposit or Withdrawal)');
    // Coins the catalogue lacks (IOTA, XLM, …) are named by symbol: a spreadsheet's own mapping has no contract column.
    expect(r.message).toMatch(/Most often: Coin: no token … on ETH in the catalogue; .*\(\d+ rows\)/);
    const records = await all();
    expect(records.map((x) => [x.type, x.token_id, x.amount, x.created_at]).sort()).toEqual([
      ['Deposit', 'ETH', '0.000043', Date.UTC(2017, 11, 4, 19, 13, 15)],
      ['Deposit', 'ETH', '1', Date.UTC(2017, 11, 4, 19, 21, 42)],
    ]);
    const again = await importFile({ source: file(name), mapping });
    expect(again).toMatchObject({ added: 0, unchanged: deposits.length });
  });
});

describe('one hash, three movements: the API picks the record the claim is about', () => {
  it('a hash with an ETH call and two token transfers (SAI, WETH): by token_id, and the native transfer when the claim names none', async () => {
    const hash = '0xa2b96dab700c4547683818b6fd1fe580382c2e8d8697966efe4f25522c633499';
    const opts = { wallet_id: WALLET, chain_id: 'ETH' };
    for (const [symbol, contract] of [
      ['SAI', '0x89d24a6b4ccb1b6faa2625fe562bdd9a23260359'],
      ['WETH', '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'],
    ] as const)
      await service.svc.invoke('catalogue-token-add', { chain_id: 'ETH', symbol, contract_address: contract, decimal: 18 }, meta);
    await importFile({ source: file('etherscan-0x003dc-erc20.csv'), ...opts });
    await importFile({ source: file('etherscan-0x003dc-txlist.csv'), ...opts });
    const records = await all({ search: hash });
    expect(records.map((r) => [r.token_id, r.amount]).sort()).toEqual([
      ['ETH', '0'],
      ['ETH_SAI', '999.680000000000000037'],
      ['ETH_WETH', '8'],
    ]);

    const secret = (await service.svc.invoke('keys-create', { label: 'robot', wallets: null }, meta)).api_secret;
    const app = buildServer(service.svc, { log: () => {}, rateLimit: false });
    try {
      const res = await signedInject(app, secret, {
        method: 'POST',
        url: '/nps/bill/verify/txs',
        body: {
          txs: [
            { hash, chain_id: 'ETH', token_id: 'ETH_WETH', amount: '8' },
            { hash, chain_id: 'ETH', token_id: 'ETH_SAI', amount: '999.680000000000000037' },
            { hash, chain_id: 'ETH', type: 'Withdrawal' },
            { hash, chain_id: 'ETH', token_id: 'ETH_SAI', amount: '8' },
          ],
        },
      });
      const data = res.body.data as { result: boolean; amount_match: boolean; tx: { token_id: string; amount: string } | null }[];
      expect(data.map((d) => [d.result, d.tx?.token_id, d.tx?.amount])).toEqual([
        [true, 'ETH_WETH', '8'],
        [true, 'ETH_SAI', '999.680000000000000037'],
        // No token, no amount: the first movement, the transaction's own (native) one.
        [true, 'ETH', '0'],
        // The SAI transfer is the claim's record, whatever its amount says: a mismatch on the amount.
        [false, 'ETH_SAI', '999.680000000000000037'],
      ]);
      expect(data[3]!.amount_match).toBe(false);
    } finally {
      await app.close();
    }
  });
});
