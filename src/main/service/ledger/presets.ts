import { LEDGER_FIELDS, Mapping, REQUIRED_FIELDS, type LedgerPreset, type LedgerStatus, type MappingInput } from '../../../shared/ledger';
import { byDoor } from '../said';

/*
 * Built-in mappings: the native format; the Etherscan family's transactions, internal transactions
 * and ERC-20 transfer exports; Tronscan's transfer exports. Detection takes the first whose
 * identifying columns are all in the header, so the more specific come first.
 */

export interface PresetDef {
  name: string;
  label: string;
  description: string;
  /** Header columns that identify it (each entry: any one of the names). */
  detect: (string | RegExp)[][];
  /** The mapping for a file with these headers. */
  mappingFor: (headers: string[]) => Mapping;
  /** Headers of a typical file, to show the mapping in the preset list. */
  exampleHeaders: string[];
  /**
   * The chain family of the export and the coin its native amounts are in, where the header
   * names it (Value_IN(BNB)); null for a format whose rows name their chain (native).
   */
  chainOf: (headers: string[], rows: string[][]) => { family: string; unit: string | null } | null;
  /** The rows are transfers of the chain's own coin (the token is the chain's native token). */
  ofNativeCoin?: boolean;
  /**
   * Why the file's times are in no zone it states (then the zone is asked), or null. Explorers
   * write UTC and say so in the header (DateTime (UTC)), or write Unix time.
   */
  zoneUnstated?: (headers: string[]) => string | null;
}

const norm = (h: string) => h.trim().toLowerCase();

/** The header among `headers` matching `wanted` (a name compared case-insensitively, or a pattern). */
export function findHeader(headers: readonly string[], wanted: string | RegExp): string | undefined {
  if (typeof wanted === 'string') {
    const exact = headers.find((h) => h.trim() === wanted);
    return exact ?? headers.find((h) => norm(h) === norm(wanted));
  }
  return headers.find((h) => wanted.test(h.trim()));
}

const mapping = (m: Parameters<typeof Mapping.parse>[0]): Mapping => Mapping.parse(m);

/** An explorer writes plain decimals: an amount in scientific notation has been through a spreadsheet (numbers.ts). */
const EXPLORER_NUMBERS = { scientific: false };

/** The explorers that share Etherscan's export format, by the coin their value columns are in. */
/** Where the wallet's address of an export comes from, as each door names it (service/said.ts). */
const ADDRESS_GIVEN = byDoor('--wallet-address', "the import dialog's Wallet address (or the wallet's own, on the Wallets screen)");

const EXPLORER_NOTE =
  "Etherscan's export format is shared by BscScan, PolygonScan, Arbiscan, Basescan, Optimism's explorer, Snowtrace and Mantlescan: the coin in Value_IN(...) names the chain where only one chain has it (BNB, POL/MATIC, AVAX, MNT); for ETH (Ethereum, Arbitrum, Optimism, Base) the chain must be given.";

const HASH_NAMES = ['Transaction Hash', 'Txhash', 'Txn Hash', 'Tx Hash'];
const hashOf = (headers: readonly string[]) => HASH_NAMES.map((n) => findHeader(headers, n)).find((h) => h !== undefined);
/** The coin named by a column like Value_IN(ETH) or TxnFee(BNB). */
const unitOf = (header: string | undefined): string | null => (header ? (/\((\w+)\)/.exec(header)?.[1]?.toUpperCase() ?? null) : null);

/** The columns every Etherscan-family export starts with. */
const ETHERSCAN_HEAD = ['Transaction Hash', 'Blockno', 'UnixTimestamp', 'DateTime (UTC)'];

const ETHERSCAN_EXAMPLE = [
  ...ETHERSCAN_HEAD,
  'From',
  'To',
  'ContractAddress',
  'Value_IN(ETH)',
  'Value_OUT(ETH)',
  'CurrentValue @ $3,500.12/ETH',
  'TxnFee(ETH)',
  'TxnFee(USD)',
  'Historical $Price/ETH',
  'Status',
  'ErrCode',
  'Method',
];

const ETHERSCAN_INTERNAL_EXAMPLE = [
  ...ETHERSCAN_HEAD,
  'ParentTxFrom',
  'ParentTxTo',
  'ParentTxETH_Value',
  'From',
  'TxTo',
  'ContractAddress',
  'Value_IN(ETH)',
  'Value_OUT(ETH)',
  'CurrentValue @ $3,500.12/ETH',
  'Historical $Price/ETH',
  'Status',
  'ErrCode',
  'Type',
];

const ETHERSCAN_TOKENS_EXAMPLE = [
  ...ETHERSCAN_HEAD,
  'From',
  'To',
  'TokenValue',
  'USDValueDayOfTx',
  'ContractAddress',
  'TokenName',
  'TokenSymbol',
];

const TRONSCAN_EXAMPLE = [
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

/** The transaction list's amount ("0.5 ETH"): Value in the advanced filter's export, Amount in the address page's since 2024 (beside "Value (USD)"). */
const LIST_AMOUNT = ['Value', 'Amount'];
const listAmountOf = (headers: readonly string[]) => LIST_AMOUNT.map((n) => findHeader(headers, n)).find((h) => h !== undefined);

/** Columns common to Etherscan's three exports: the hash, the block time, the addresses. */
function etherscanColumns(headers: readonly string[], toNames: string[]): Partial<Record<MappingInput, string>> {
  const time = findHeader(headers, 'UnixTimestamp') ?? 'UnixTimestamp';
  return {
    hash: hashOf(headers) ?? 'Transaction Hash',
    created_at: time,
    confirmed_at: time,
    from: findHeader(headers, 'From') ?? 'From',
    to: toNames.map((n) => findHeader(headers, n)).find((h) => h !== undefined) ?? toNames[0]!,
  };
}

/**
 * Tronscan's confirmation flag: true is Completed, false Confirming, in English and as a
 * spreadsheet in another language writes TRUE and FALSE when it saves the file again (WAHR and
 * FALSCH in German, VRAI and FAUX in French, ...).
 */
const TRUE_WORDS = [
  'true',
  'wahr',
  'vrai',
  'verdadero',
  'vero',
  'waar',
  'verdadeiro',
  'prawda',
  'sant',
  'sand',
  'sann',
  'tosi',
  'pravda',
  'igaz',
  'истина',
  'doğru',
];
const FALSE_WORDS = [
  'false',
  'falsch',
  'faux',
  'falso',
  'onwaar',
  'fałsz',
  'falskt',
  'falsk',
  'usann',
  'epätosi',
  'nepravda',
  'hamis',
  'ложь',
  'yanlış',
  'yanliş',
];
const CONFIRMED_WORDS: Record<string, LedgerStatus> = Object.fromEntries([
  ...TRUE_WORDS.map((w) => [w, 'Completed'] as const),
  ...FALSE_WORDS.map((w) => [w, 'Confirming'] as const),
]);

/** An explorer's status: empty is a success, anything else (an error text, ErrCode) a failure. */
const FAILED_UNLESS_EMPTY = { '': 'Completed', '*': 'Failed' } as const;
/** An internal transfer's Status, the trace's isError: "0" (or empty) a success, anything else a failure. */
const IS_ERROR = { '0': 'Completed', '': 'Completed', '*': 'Failed' } as const;

export const PRESETS: PresetDef[] = [
  {
    name: 'native',
    label: 'NPS ledger (native)',
    description:
      'Columns named exactly as the record fields (transaction_id, wallet_id, request_id, type, status, amount, to, fee_ratio, fee_fixed, fee, er, amount_actual, hash, chain_id, token_id, created_at, confirmed_at, completed_at), in any order; or a JSON array of objects with those keys.',
    detect: REQUIRED_FIELDS.filter((f) => f !== 'wallet_id').map((f) => [f]),
    exampleHeaders: [...LEDGER_FIELDS],
    chainOf: () => null,
    mappingFor: (headers) => {
      const columns: Partial<Record<MappingInput, string>> = {};
      for (const field of LEDGER_FIELDS) {
        const h = findHeader(headers, field);
        if (h !== undefined) columns[field] = h;
      }
      return mapping({ columns });
    },
  },
  {
    name: 'etherscan-internal',
    ofNativeCoin: true,
    label: 'Etherscan-family internal transactions (CSV)',
    description: `The internal transactions export of one address (Txhash, ParentTxFrom, TxTo, Value_IN/Value_OUT). Each row is an internal transfer of the coin, a record of its own beside the transaction's own transfer; Value_IN makes a Deposit, Value_OUT a Withdrawal; a creation's empty TxTo is the contract it made (ContractAddress); Status 0 with an empty ErrCode is Completed, anything else Failed. ${EXPLORER_NOTE}`,
    detect: [HASH_NAMES, ['UnixTimestamp'], [/^Value_IN\(/i], ['ParentTxFrom', 'TxTo']],
    exampleHeaders: ETHERSCAN_INTERNAL_EXAMPLE,
    chainOf: (headers) => ({ family: 'ETH', unit: unitOf(findHeader(headers, /^Value_IN\(/i)) }),
    mappingFor: (headers) => {
      const columns = etherscanColumns(headers, ['TxTo', 'To']);
      columns.amount_in = findHeader(headers, /^Value_IN\(/i) ?? 'Value_IN(ETH)';
      columns.amount_out = findHeader(headers, /^Value_OUT\(/i) ?? 'Value_OUT(ETH)';
      // Status is the trace's isError ("0" or "1"), ErrCode its error text: either one fails it.
      const status = findHeader(headers, 'Status');
      if (status) columns.status = status;
      const err = findHeader(headers, 'ErrCode');
      if (err) columns.error = err;
      const created = findHeader(headers, 'ContractAddress');
      if (created) columns.created_contract = created;
      return mapping({
        columns,
        constants: status ? {} : { status: 'Completed' },
        values: { status: IS_ERROR },
        number: EXPLORER_NUMBERS,
        date: { format: 'unix_s' },
        id_fields: ['hash'],
        movement: 'internal',
      });
    },
  },
  {
    name: 'etherscan-tokens',
    label: 'Etherscan-family token transfers, ERC-20 (CSV)',
    description: `The ERC-20 token transfer export of one address (TokenValue, ContractAddress, TokenSymbol). The token is the one with that contract on the chain (a symbol alone never picks one; an unknown contract is reported); a transfer to the wallet's address is a Deposit, from it a Withdrawal (the address is taken from ${ADDRESS_GIVEN}, or found as the one address on every row). The export does not say the chain: give it. ${EXPLORER_NOTE}`,
    detect: [HASH_NAMES, ['UnixTimestamp'], ['TokenValue', 'Value', 'Quantity'], ['ContractAddress'], ['TokenSymbol']],
    exampleHeaders: ETHERSCAN_TOKENS_EXAMPLE,
    chainOf: () => ({ family: 'ETH', unit: null }),
    mappingFor: (headers) => {
      const columns = etherscanColumns(headers, ['To']);
      columns.amount = findHeader(headers, 'TokenValue') ?? findHeader(headers, 'Value') ?? findHeader(headers, 'Quantity') ?? 'TokenValue';
      columns.token_contract = findHeader(headers, 'ContractAddress') ?? 'ContractAddress';
      columns.token_symbol = findHeader(headers, 'TokenSymbol') ?? 'TokenSymbol';
      const name = findHeader(headers, 'TokenName');
      if (name) columns.token_name = name;
      const logIndex = findHeader(headers, 'LogIndex') ?? findHeader(headers, 'logIndex');
      if (logIndex) columns.log_index = logIndex;
      return mapping({
        columns,
        // A token transfer is listed only when its transaction succeeded.
        constants: { status: 'Completed' },
        number: EXPLORER_NUMBERS,
        date: { format: 'unix_s' },
        id_fields: ['hash', 'token_id'],
        movement: 'token',
        token_by_symbol: false,
      });
    },
  },
  {
    name: 'etherscan-token-page',
    label: "Etherscan-family transfers from a token's page (CSV)",
    description: `The transfers exported from one token's page on the explorer, filtered by an address or not (Txhash, UnixTimestamp, From, To, Quantity, Method). The file names neither the token nor the chain (the page did): give the token (${byDoor('--token', 'Token of every row')}), which names its chain; nothing is guessed. A transfer to the wallet's address is a Deposit, from it a Withdrawal; Quantity is in the token's units, often with thousands separators; Completed (the export lists only transfers that happened). ${EXPLORER_NOTE}`,
    detect: [HASH_NAMES, ['UnixTimestamp', 'DateTime (UTC)'], ['Quantity'], ['From'], ['To']],
    exampleHeaders: ['Txhash', 'Blockno', 'UnixTimestamp', 'DateTime (UTC)', 'From', 'To', 'Quantity', 'Method'],
    chainOf: () => ({ family: 'ETH', unit: null }),
    mappingFor: (headers) => {
      const unix = findHeader(headers, 'UnixTimestamp');
      const time = unix ?? findHeader(headers, 'DateTime (UTC)') ?? 'UnixTimestamp';
      return mapping({
        columns: {
          hash: hashOf(headers) ?? 'Txhash',
          created_at: time,
          confirmed_at: time,
          from: findHeader(headers, 'From') ?? 'From',
          to: findHeader(headers, 'To') ?? 'To',
          amount: findHeader(headers, 'Quantity') ?? 'Quantity',
        },
        constants: { status: 'Completed' },
        number: EXPLORER_NUMBERS,
        // DateTime (UTC) as the explorer writes it, or as a spreadsheet saved it again (16.03.2020 03:55:26: its order from the file, or asked).
        date: { format: unix ? 'unix_s' : 'auto' },
        id_fields: ['hash', 'token_id'],
        movement: 'token',
      });
    },
  },
  {
    name: 'etherscan',
    ofNativeCoin: true,
    label: 'Etherscan-family transactions (CSV)',
    description: `The transactions export of one address. Value_IN makes a Deposit, Value_OUT a Withdrawal, a row of no value either way goes by the wallet's address (From or To); a contract creation's empty To is the contract it made (ContractAddress); the fee counts on withdrawals; an empty Status and ErrCode is Completed, any error in either Failed (kept as a record). The transaction id is derived from wallet, chain and hash. ${EXPLORER_NOTE}`,
    detect: [HASH_NAMES, ['UnixTimestamp'], [/^Value_IN\(/i], [/^Value_OUT\(/i]],
    exampleHeaders: ETHERSCAN_EXAMPLE,
    chainOf: (headers) => ({ family: 'ETH', unit: unitOf(findHeader(headers, /^Value_IN\(/i)) }),
    mappingFor: (headers) => {
      const columns = etherscanColumns(headers, ['To']);
      columns.amount_in = findHeader(headers, /^Value_IN\(/i) ?? 'Value_IN(ETH)';
      columns.amount_out = findHeader(headers, /^Value_OUT\(/i) ?? 'Value_OUT(ETH)';
      columns.status = findHeader(headers, 'Status') ?? 'Status';
      const err = findHeader(headers, 'ErrCode');
      if (err) columns.error = err;
      const fee = findHeader(headers, /^TxnFee\((?!USD)\w+\)$/i);
      if (fee) columns.fee = fee;
      const created = findHeader(headers, 'ContractAddress');
      if (created) columns.created_contract = created;
      return mapping({
        columns,
        values: { status: FAILED_UNLESS_EMPTY },
        number: EXPLORER_NUMBERS,
        date: { format: 'unix_s' },
        id_fields: ['hash'],
        fee_on: 'Withdrawal',
      });
    },
  },
  {
    name: 'etherscan-list',
    ofNativeCoin: true,
    label: 'Etherscan-family transaction list, advanced filter (CSV)',
    description: `The transaction list exported from an explorer's advanced filter or, since 2024, from an address's page (Transaction Hash, Status, DateTime (UTC), From, To, Value or Amount as "0.5 ETH", Txn Fee). A transfer to the wallet's address is a Deposit, from it a Withdrawal; the fee counts on withdrawals; Success is Completed, an error Failed (kept). ${EXPLORER_NOTE}`,
    detect: [['Transaction Hash'], ['DateTime (UTC)'], LIST_AMOUNT, ['Txn Fee'], ['From'], ['To']],
    exampleHeaders: [
      'Transaction Hash',
      'Status',
      'Method',
      'Blockno',
      'DateTime (UTC)',
      'From',
      'From_Nametag',
      'To',
      'To_Nametag',
      'Value',
      'Txn Fee',
    ],
    chainOf: (headers, rows) => {
      const value = headers.indexOf(listAmountOf(headers) ?? '');
      const unit = rows.map((r) => /\s([A-Za-z]\w*)$/.exec((r[value] ?? '').trim())?.[1]).find(Boolean);
      return { family: 'ETH', unit: unit?.toUpperCase() ?? null };
    },
    mappingFor: (headers) => {
      const time = findHeader(headers, 'DateTime (UTC)') ?? 'DateTime (UTC)';
      return mapping({
        columns: {
          hash: findHeader(headers, 'Transaction Hash') ?? 'Transaction Hash',
          created_at: time,
          confirmed_at: time,
          from: findHeader(headers, 'From') ?? 'From',
          to: findHeader(headers, 'To') ?? 'To',
          amount: listAmountOf(headers) ?? 'Value',
          fee: findHeader(headers, 'Txn Fee') ?? 'Txn Fee',
          status: findHeader(headers, 'Status') ?? 'Status',
        },
        values: { status: { Success: 'Completed', '*': 'Failed' } },
        number: EXPLORER_NUMBERS,
        // As the token page's: the explorer's YYYY-MM-DD HH:mm:ss, or a spreadsheet's own form of it.
        date: { format: 'auto' },
        id_fields: ['hash'],
        fee_on: 'Withdrawal',
      });
    },
  },
  {
    name: 'tronscan',
    label: 'Tronscan transfers, TRX and TRC-20 (CSV)',
    description: `Tronscan's transfer export of one address. A transfer to the wallet's address is a Deposit, from it a Withdrawal (the address is taken from ${ADDRESS_GIVEN}, or found as the one address on every row); the token is the one with the row's tokenAddress (an unknown contract is reported); an empty tokenAddress is TRX when the symbol is TRX or empty, and is refused otherwise (a symbol alone never picks a token: give ${byDoor('--token', 'the Token of every row')} for a file of one token). isConfirm (or confirmed) true is Completed, false Confirming; a contractRet other than SUCCESS is Failed. The transaction id is derived from wallet, hash, token, from, to and value.`,
    // Header sets: the transfers export (Tx Hash, blockTime(UTC+8), tokenAddress, isConfirm) and the older
    // contract-transfers export (transaction_id, block_ts, from_address, to_address, contractRet, quant).
    detect: [
      ['Tx Hash', 'Txn Hash', 'transaction_id'],
      ['value', 'amount', 'quant'],
      [/^blockTime\(/i, 'block_ts', 'Time(UTC)'],
      ['from', 'from_address'],
      ['to', 'to_address'],
    ],
    exampleHeaders: TRONSCAN_EXAMPLE,
    chainOf: () => ({ family: 'TRON', unit: 'TRX' }),
    zoneUnstated: (headers) => {
      const ts = findHeader(headers, 'block_ts');
      const stated = findHeader(headers, /^blockTime\(UTC/i) ?? findHeader(headers, 'Time(UTC)');
      return ts && !stated
        ? `its times (${ts}) name no time zone: Tronscan's older export wrote them in a zone it does not state, and its newer one writes UTC+8 beside UTC`
        : null;
    },
    mappingFor: (headers) => {
      const utc = findHeader(headers, 'blockTime(UTC)') ?? findHeader(headers, 'Time(UTC)');
      const local = findHeader(headers, /^blockTime\(UTC([+-]\d{1,2})\)$/i);
      const time = utc ?? local ?? findHeader(headers, 'block_ts') ?? 'blockTime(UTC)';
      const offsetHours = !utc && local ? Number(/UTC([+-]\d{1,2})/i.exec(local)![1]) : 0;
      const offset = `${offsetHours < 0 ? '-' : '+'}${String(Math.abs(offsetHours)).padStart(2, '0')}:00`;
      const columns: Partial<Record<MappingInput, string>> = {
        hash: findHeader(headers, 'Tx Hash') ?? findHeader(headers, 'Txn Hash') ?? findHeader(headers, 'transaction_id') ?? 'Tx Hash',
        created_at: time,
        from: findHeader(headers, 'from') ?? findHeader(headers, 'from_address') ?? 'from',
        to: findHeader(headers, 'to') ?? findHeader(headers, 'to_address') ?? 'to',
        amount: findHeader(headers, 'value') ?? findHeader(headers, 'amount') ?? findHeader(headers, 'quant') ?? 'value',
      };
      const contract =
        findHeader(headers, 'tokenAddress') ?? findHeader(headers, 'contract_address') ?? findHeader(headers, 'Token Address');
      if (contract) columns.token_contract = contract;
      const symbol = findHeader(headers, 'symbol') ?? findHeader(headers, 'token') ?? findHeader(headers, 'Token Symbol');
      if (symbol) columns.token_symbol = symbol;
      // Whether the block was confirmed is the status; the outcome (contractRet), where the file has it, can fail it.
      const confirmed = findHeader(headers, 'isConfirm') ?? findHeader(headers, 'confirmed');
      if (confirmed) columns.status = confirmed;
      const outcome = findHeader(headers, 'contractRet') ?? findHeader(headers, 'Result');
      if (outcome) columns.error = outcome;
      return mapping({
        columns,
        constants: confirmed ? {} : { status: 'Completed' },
        values: { status: { ...CONFIRMED_WORDS, confirmed: 'Completed', unconfirmed: 'Confirming' } },
        // The older export's quant is written to the token's precision, and the file names no token: a row of another token shows only there.
        number: { ...EXPLORER_NUMBERS, token_places: columns.amount === findHeader(headers, 'quant') },
        date: { format: 'auto', utc_offset: offset },
        id_fields: ['hash', 'token_id', 'from', 'to', 'amount'],
        movement: 'token',
        token_by_symbol: false,
      });
    },
  },
];

export const presetByName = (name: string): PresetDef | undefined => PRESETS.find((p) => p.name === name);

/** The first preset whose identifying columns are all in the header. */
export function detectPreset(headers: readonly string[]): PresetDef | undefined {
  return PRESETS.find((p) => p.detect.every((anyOf) => anyOf.some((w) => findHeader(headers, w) !== undefined)));
}

export function listPresets(): LedgerPreset[] {
  return PRESETS.map((p) => ({
    name: p.name,
    label: p.label,
    description: p.description,
    detect: p.detect.map((anyOf) => anyOf.map((w) => (typeof w === 'string' ? w : w.source.replace(/^\^|\\/g, ''))).join(' | ')),
    mapping: p.mappingFor(p.exampleHeaders),
  }));
}

/** Common names of other exports' columns, for a first guess at a mapping of an unknown file. */
const SYNONYMS: Partial<Record<MappingInput, string[]>> = {
  transaction_id: ['txn_id', 'tx_id', 'id'],
  request_id: ['request', 'reference', 'ref', 'order_id'],
  hash: ['tx hash', 'txhash', 'transaction hash', 'tx_hash', 'txid', 'hash'],
  amount: ['amount', 'value', 'quantity', 'qty'],
  to: ['to', 'to address', 'to_address', 'recipient', 'address'],
  from: ['from', 'from address', 'from_address', 'sender'],
  type: ['type', 'direction', 'side', 'kind'],
  status: ['status', 'state'],
  fee: ['fee', 'network fee', 'txn fee', 'gas fee'],
  created_at: ['created_at', 'time', 'date', 'timestamp', 'datetime', 'date (utc)', 'created'],
  token_symbol: ['currency', 'asset', 'symbol', 'coin', 'token'],
  token_contract: ['contract', 'contract address', 'token address', 'token_address'],
};

/** A mapping for an unknown header: fields found by name, then by common synonyms. */
export function guessMapping(headers: readonly string[]): Mapping {
  const columns: Partial<Record<MappingInput, string>> = {};
  const used = new Set<string>();
  for (const field of LEDGER_FIELDS) {
    const h = findHeader(headers, field);
    if (h !== undefined) {
      columns[field] = h;
      used.add(h);
    }
  }
  for (const [field, names] of Object.entries(SYNONYMS) as [MappingInput, string[]][]) {
    if (columns[field] !== undefined) continue;
    const h = headers.find((x) => !used.has(x) && names.includes(norm(x)));
    if (h !== undefined) {
      columns[field] = h;
      used.add(h);
    }
  }
  return mapping({ columns });
}
