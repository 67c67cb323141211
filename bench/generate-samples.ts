import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TronWeb } from 'tronweb';
import { checksumAddress } from 'viem';
import { LEDGER_FIELDS } from '../src/shared/ledger';
import { prng } from './generate-ledger';

/*
 * Writes the sample ledgers of resources/samples/ (npx tsx bench/generate-samples.ts). The output
 * is the same on every run: made-up but well-formed ids, EIP-55 addresses, TRON Base58Check
 * addresses and hashes, so the samples can be regenerated after a format change.
 */

export const SAMPLE_WALLETS = {
  treasury: '3f6c1d2e-8a4b-4c7d-9e2f-1a2b3c4d5e6f',
  customers: '7b9e4a10-2c3d-4e5f-8a6b-0c1d2e3f4a5b',
  etherscan: 'c1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607',
  tronscan: 'd4e5f607-1a2b-4c3d-9e4f-5a6b7c8d9e0f',
} as const;

const rand = prng(20260101);
const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[(rand() * 16) | 0]).join('');
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[(rand() * 4) | 0]}${hex(3)}-${hex(12)}`;
const evm = () => checksumAddress(`0x${hex(40)}`);
const tron = () => TronWeb.address.fromHex(`41${hex(40)}`) as string;
const evmHash = () => `0x${hex(64)}`;
const tronHash = () => hex(64);

const csvCell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const csv = (header: readonly string[], rows: string[][], eol = '\n', quoteAll = false) =>
  [header, ...rows].map((r) => r.map((v) => (quoteAll ? `"${v.replace(/"/g, '""')}"` : csvCell(v))).join(',')).join(eol) + eol;

type Row = Partial<Record<(typeof LEDGER_FIELDS)[number], string>>;
const native = (rows: Row[]) => rows.map((r) => LEDGER_FIELDS.map((f) => r[f] ?? ''));

const T0 = Date.UTC(2026, 0, 5, 8, 0, 0);
const ms = (minutes: number) => String(T0 + minutes * 60_000);
const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const secs = (minutes: number) => String((T0 + minutes * 60_000) / 1000);

/** The native sample: 30 rows over EVM chains and TRON, every status, both types. */
function nativeRows(): Row[] {
  const { treasury, customers } = SAMPLE_WALLETS;
  const rows: Row[] = [];
  const add = (r: Row) => rows.push({ transaction_id: uuid(), ...r });
  const evmTx = (m: number) => ({ hash: evmHash(), created_at: ms(m), confirmed_at: ms(m + 1), completed_at: iso(m + 3) });
  const tronTx = (m: number) => ({ hash: tronHash(), created_at: ms(m), confirmed_at: iso(m + 1), completed_at: ms(m + 2) });
  // Deposits of customers
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Completed',
    amount: '1500',
    to: tron(),
    chain_id: 'TRON',
    token_id: 'TRON_USDT',
    ...tronTx(0),
  });
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Completed',
    amount: '2.5E+3',
    to: tron(),
    chain_id: 'TRON',
    token_id: 'TRON_USDT',
    ...tronTx(7),
  });
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Completed',
    amount: '249.99',
    to: evm(),
    chain_id: 'ETH',
    token_id: 'ETH_USDT',
    ...evmTx(12),
  });
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Completed',
    amount: '1000',
    to: evm(),
    chain_id: 'ETH',
    token_id: 'ETH_USDC',
    ...evmTx(20),
  });
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Completed',
    amount: '0.75',
    to: evm(),
    chain_id: 'ETH',
    token_id: 'ETH',
    ...evmTx(31),
  });
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Completed',
    amount: '1.5E-7',
    to: evm(),
    chain_id: 'ETH',
    token_id: 'ETH',
    ...evmTx(33),
  });
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Completed',
    amount: '250.123456789012345678',
    to: evm(),
    chain_id: 'BSC_BNB',
    token_id: 'BSC_USDT',
    ...evmTx(40),
  });
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Completed',
    amount: '99.000000000000000001',
    to: evm(),
    chain_id: 'BSC_BNB',
    token_id: 'BSC_USDC',
    ...evmTx(46),
  });
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Completed',
    amount: '0.042',
    to: evm(),
    chain_id: 'BSC_BNB',
    token_id: 'BSC_BNB',
    ...evmTx(52),
  });
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Confirming',
    amount: '320',
    to: tron(),
    chain_id: 'TRON',
    token_id: 'TRON_USDT',
    hash: tronHash(),
    created_at: ms(60),
    confirmed_at: '',
    completed_at: '',
  });
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Pending',
    amount: '75.5',
    to: evm(),
    chain_id: 'MATIC',
    token_id: 'MATIC_USDT',
    hash: evmHash(),
    created_at: ms(64),
  });
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Completed',
    amount: '5000',
    to: evm(),
    chain_id: 'ARBITRUM_ETH',
    token_id: 'ARBITRUM_USDC',
    ...evmTx(70),
  });
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Completed',
    amount: '12.34',
    to: evm(),
    chain_id: 'BASE_ETH',
    token_id: 'BASE_USDC',
    ...evmTx(75),
  });
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Completed',
    amount: '1200',
    to: tron(),
    chain_id: 'TRON',
    token_id: 'TRON',
    hash: tronHash(),
    created_at: secs(81),
    confirmed_at: secs(82),
    completed_at: secs(83),
  });
  add({
    wallet_id: customers,
    type: 'Deposit',
    status: 'Failed',
    amount: '60',
    to: evm(),
    chain_id: 'ETH',
    token_id: 'ETH_USDT',
    hash: evmHash(),
    created_at: ms(90),
    completed_at: ms(92),
  });
  // Withdrawals of the treasury, with request ids and fees
  const wd = (m: number, r: Row, fee: string, family: 'ETH' | 'TRON') => {
    const amount = r.amount!;
    add({
      wallet_id: treasury,
      type: 'Withdrawal',
      request_id: `WD-2026-${String(1040 + rows.length).padStart(5, '0')}`,
      fee,
      fee_fixed: fee,
      fee_ratio: '0',
      er: '1',
      amount_actual: amount,
      ...(family === 'ETH' ? evmTx(m) : tronTx(m)),
      ...r,
    });
  };
  wd(100, { status: 'Completed', amount: '10000', to: tron(), chain_id: 'TRON', token_id: 'TRON_USDT' }, '1', 'TRON');
  wd(110, { status: 'Completed', amount: '2500', to: tron(), chain_id: 'TRON', token_id: 'TRON_USDT' }, '1', 'TRON');
  wd(118, { status: 'Completed', amount: '750.5', to: evm(), chain_id: 'ETH', token_id: 'ETH_USDT' }, '4.2', 'ETH');
  wd(125, { status: 'Completed', amount: '1.25', to: evm(), chain_id: 'ETH', token_id: 'ETH' }, '0.00042', 'ETH');
  wd(131, { status: 'Completed', amount: '3000.000000000000000001', to: evm(), chain_id: 'BSC_BNB', token_id: 'BSC_USDT' }, '0.5', 'ETH');
  wd(
    137,
    { status: 'Completed', amount: '0.3', to: evm(), chain_id: 'BSC_BNB', token_id: 'BSC_BNB', fee: '3.1E-4', fee_fixed: '3.1E-4' },
    '0.00031',
    'ETH',
  );
  wd(
    142,
    { status: 'Confirming', amount: '400', to: evm(), chain_id: 'ETH', token_id: 'ETH_USDC', completed_at: '', amount_actual: '' },
    '3',
    'ETH',
  );
  wd(
    150,
    {
      status: 'Pending',
      amount: '88',
      to: tron(),
      chain_id: 'TRON',
      token_id: 'TRON_USDT',
      hash: '',
      confirmed_at: '',
      completed_at: '',
      amount_actual: '',
    },
    '1',
    'TRON',
  );
  wd(
    155,
    {
      status: 'Rejected',
      amount: '50000',
      to: tron(),
      chain_id: 'TRON',
      token_id: 'TRON_USDT',
      hash: '',
      confirmed_at: '',
      completed_at: '',
      amount_actual: '',
      request_id: 'WD-2026-01063, manual review',
    },
    '',
    'TRON',
  );
  wd(
    160,
    { status: 'Failed', amount: '120', to: evm(), chain_id: 'MATIC', token_id: 'MATIC_USDT', completed_at: ms(170), amount_actual: '' },
    '0.02',
    'ETH',
  );
  wd(175, { status: 'Completed', amount: '640.25', to: evm(), chain_id: 'ARBITRUM_ETH', token_id: 'ARBITRUM_USDT' }, '0.1', 'ETH');
  wd(180, { status: 'Completed', amount: '99.99', to: evm(), chain_id: 'OPT_ETH', token_id: 'OPT_USDT' }, '0.05', 'ETH');
  wd(186, { status: 'Completed', amount: '1800', to: evm(), chain_id: 'AVAXC', token_id: 'AVAXC_USDT' }, '0.3', 'ETH');
  wd(192, { status: 'Completed', amount: '5E+2', to: tron(), chain_id: 'TRON', token_id: 'TRON_USDT', amount_actual: '500' }, '1', 'TRON');
  wd(
    199,
    {
      status: 'Rejected',
      amount: '15',
      to: evm(),
      chain_id: 'BASE_ETH',
      token_id: 'BASE_USDC',
      hash: '',
      confirmed_at: '',
      completed_at: '',
      amount_actual: '',
    },
    '',
    'ETH',
  );
  return rows;
}

function etherscan(): { csv: string; address: string } {
  const me = evm().toLowerCase();
  const header = [
    'Transaction Hash',
    'Blockno',
    'UnixTimestamp',
    'DateTime (UTC)',
    'From',
    'To',
    'ContractAddress',
    'Value_IN(ETH)',
    'Value_OUT(ETH)',
    'CurrentValue @ $3,312.48/ETH',
    'TxnFee(ETH)',
    'TxnFee(USD)',
    'Historical $Price/ETH',
    'Status',
    'ErrCode',
    'Method',
  ];
  const rows: string[][] = [];
  let block = 21_540_000;
  let t = Date.UTC(2026, 0, 3, 9, 12, 11) / 1000;
  const line = (from: string, to: string, valueIn: string, valueOut: string, fee: string, status = '', err = '', method = 'Transfer') => {
    block += 37 + ((rand() * 900) | 0);
    t += 600 + ((rand() * 7200) | 0);
    const dt = new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19);
    const usd = (Number(valueIn !== '0' ? valueIn : valueOut) * 3312.48).toFixed(2);
    rows.push([
      evmHash(),
      String(block),
      String(t),
      dt,
      from,
      to,
      '',
      valueIn,
      valueOut,
      `$${usd}`,
      fee,
      (Number(fee) * 3312.48).toFixed(2),
      '3298.17',
      status,
      err,
      method,
    ]);
  };
  line(evm().toLowerCase(), me, '1.5', '0', '0.000441');
  line(me, evm().toLowerCase(), '0', '0.25', '0.000126');
  line(evm().toLowerCase(), me, '0.0031', '0', '0.000087');
  line(me, evm().toLowerCase(), '0', '1.2', '0.000412');
  line(me, evm().toLowerCase(), '0', '0', '0.001873', 'Error(0)', 'execution reverted', 'Approve');
  line(evm().toLowerCase(), me, '12', '0', '0.000231');
  line(me, evm().toLowerCase(), '0', '0.05', '0.000098');
  line(me, evm().toLowerCase(), '0', '0', '0.000532', '', '', 'Set Approval For All');
  line(evm().toLowerCase(), me, '0.000000000000000001', '0', '0.000052');
  line(me, evm().toLowerCase(), '0', '3.75', '0.000157');
  // Etherscan quotes every cell.
  return { csv: csv(header, rows, '\n', true), address: me };
}

function tronscan(): { csv: string; address: string } {
  const me = tron();
  const header = [
    'Tx Hash',
    'blockHeight',
    'blockTime(UTC+8)',
    'blockTime(UTC)',
    'from',
    'to',
    'value',
    'symbol',
    'tokenAddress',
    'isConfirm',
  ];
  const usdt = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
  const rows: string[][] = [];
  let block = 68_410_000;
  let t = Date.UTC(2026, 0, 4, 1, 0, 3);
  const fmt = (when: number) => new Date(when).toISOString().replace('T', ' ').slice(0, 19);
  const line = (from: string, to: string, value: string, symbol = 'USDT', token = usdt, confirmed = 'true') => {
    block += 100 + ((rand() * 2000) | 0);
    t += (300 + ((rand() * 5400) | 0)) * 1000;
    rows.push([tronHash(), String(block), fmt(t + 8 * 3600_000), fmt(t), from, to, value, symbol, token, confirmed]);
  };
  line(tron(), me, '1,250');
  line(tron(), me, '300.5');
  line(me, tron(), '5,000');
  line(tron(), me, '0.000001');
  line(me, tron(), '75.25');
  line(tron(), me, '10', 'TRX', '');
  line(tron(), me, '2,000', 'USDT', usdt, 'false');
  line(me, tron(), '12,345.678901');
  return { csv: csv(header, rows), address: me };
}

function badRowsFile(): string {
  const { treasury } = SAMPLE_WALLETS;
  const good = (m: number): Row => ({
    transaction_id: uuid(),
    wallet_id: treasury,
    type: 'Withdrawal',
    status: 'Completed',
    amount: String(100 + m),
    to: tron(),
    hash: tronHash(),
    chain_id: 'TRON',
    token_id: 'TRON_USDT',
    created_at: ms(300 + m),
  });
  const rows = [good(1), good(2), good(3), good(4)];
  rows.push({ ...good(5), token_id: 'TRON_USDC' });
  rows.push({ ...good(6), amount: '12,5' });
  rows.push({ ...good(7), transaction_id: 'WD-7' });
  rows.push({ ...good(8), chain_id: 'DOGE' });
  rows.push({ ...good(9), status: 'Done' });
  rows.push(good(10), good(11), good(12));
  return csv(LEDGER_FIELDS, native(rows));
}

export function writeSamples(dir: string): { etherscanAddress: string; tronscanAddress: string } {
  mkdirSync(dir, { recursive: true });
  const rows = nativeRows();
  // As a spreadsheet saves it: byte-order mark, CRLF line ends, quoted cells where needed.
  writeFileSync(join(dir, 'native-ledger.csv'), '\ufeff' + csv(LEDGER_FIELDS, native(rows), '\r\n'));
  // Ten more deposits (fresh ids and hashes) for the JSON sample.
  const jsonRows = nativeRows()
    .slice(0, 10)
    .map((r) => {
      const o: Record<string, unknown> = {};
      for (const f of LEDGER_FIELDS) o[f] = r[f] === undefined || r[f] === '' ? null : r[f];
      return o;
    });
  // Numbers in the JSON sample are JSON numbers where a program would write them so.
  const jsonText = JSON.stringify(
    jsonRows.map((o) => ({ ...o, created_at: o.created_at === null ? null : Number(o.created_at) })),
    null,
    2,
  ).replace(/"amount": "(\d+(\.\d+)?)"/g, '"amount": $1');
  writeFileSync(join(dir, 'native-ledger.json'), jsonText + '\n');
  const eth = etherscan();
  writeFileSync(join(dir, 'etherscan-transactions.csv'), eth.csv);
  const trx = tronscan();
  writeFileSync(join(dir, 'tronscan-token-transfers.csv'), trx.csv);
  writeFileSync(join(dir, 'native-with-bad-rows.csv'), badRowsFile());
  writeFileSync(
    join(dir, 'bad-header.csv'),
    csv(
      ['txid', 'wallet', 'kind', 'state', 'qty', 'network', 'asset', 'time'],
      [
        [uuid(), SAMPLE_WALLETS.treasury, 'Withdrawal', 'Completed', '100', 'TRON', 'TRON_USDT', ms(400)],
        [uuid(), SAMPLE_WALLETS.treasury, 'Deposit', 'Completed', '42.5', 'ETH', 'ETH_USDT', ms(410)],
      ],
    ),
  );
  return { etherscanAddress: eth.address, tronscanAddress: trx.address };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = writeSamples(fileURLToPath(new URL('../resources/samples/', import.meta.url)));
  console.log(`samples written; etherscan address ${out.etherscanAddress}, tronscan address ${out.tronscanAddress}`);
}
