import { LEDGER_FIELDS, Mapping, REQUIRED_FIELDS, type LedgerPreset, type MappingInput } from '../../../shared/ledger';

/* Built-in mappings: the native format, Etherscan's transaction CSV, Tronscan's token-transfer CSV. */

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

const ETHERSCAN_CHAINS: Record<string, string> = { ETH: 'ETH', BNB: 'BSC_BNB', POL: 'MATIC', MATIC: 'MATIC', AVAX: 'AVAXC' };

const ETHERSCAN_EXAMPLE = [
  'Transaction Hash',
  'Blockno',
  'UnixTimestamp',
  'DateTime (UTC)',
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

export const PRESETS: PresetDef[] = [
  {
    name: 'native',
    label: 'NPS ledger (native)',
    description:
      'Columns named exactly as the record fields (transaction_id, wallet_id, request_id, type, status, amount, to, fee_ratio, fee_fixed, fee, er, amount_actual, hash, chain_id, token_id, created_at, confirmed_at, completed_at), in any order; or a JSON array of objects with those keys.',
    detect: REQUIRED_FIELDS.filter((f) => f !== 'wallet_id').map((f) => [f]),
    exampleHeaders: [...LEDGER_FIELDS],
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
    name: 'etherscan',
    label: 'Etherscan transactions (CSV)',
    description:
      "Etherscan's (or BscScan's, PolygonScan's, Snowtrace's) transaction export of one address. Value_IN makes a Deposit, Value_OUT a Withdrawal; the fee counts on withdrawals; an empty Status is Completed, any error Failed. The wallet comes from --wallet-id; the transaction id is derived from wallet, chain and hash.",
    detect: [['Transaction Hash', 'Txhash'], ['UnixTimestamp'], [/^Value_IN\(/i], [/^Value_OUT\(/i]],
    exampleHeaders: ETHERSCAN_EXAMPLE,
    mappingFor: (headers) => {
      const valueIn = findHeader(headers, /^Value_IN\((\w+)\)$/i);
      const unit = valueIn ? /\((\w+)\)/.exec(valueIn)![1]!.toUpperCase() : 'ETH';
      const chain = ETHERSCAN_CHAINS[unit] ?? 'ETH';
      const columns: Partial<Record<MappingInput, string>> = {
        hash: findHeader(headers, 'Transaction Hash') ?? findHeader(headers, 'Txhash') ?? 'Transaction Hash',
        created_at: findHeader(headers, 'UnixTimestamp') ?? 'UnixTimestamp',
        confirmed_at: findHeader(headers, 'UnixTimestamp') ?? 'UnixTimestamp',
        from: findHeader(headers, 'From') ?? 'From',
        to: findHeader(headers, 'To') ?? 'To',
        amount_in: valueIn ?? `Value_IN(${unit})`,
        amount_out: findHeader(headers, /^Value_OUT\(/i) ?? `Value_OUT(${unit})`,
        status: findHeader(headers, 'Status') ?? 'Status',
      };
      const fee = findHeader(headers, /^TxnFee\((?!USD)\w+\)$/i);
      if (fee) columns.fee = fee;
      return mapping({
        columns,
        constants: { chain_id: chain, token_id: chain },
        values: { status: { '': 'Completed', '*': 'Failed' } },
        number: { decimal_separator: '.', thousands_separator: ',' },
        date: { format: 'unix_s' },
        id_fields: ['hash'],
        fee_on: 'Withdrawal',
      });
    },
  },
  {
    name: 'tronscan',
    label: 'Tronscan token transfers (CSV)',
    description:
      "Tronscan's token-transfer export of one address. A transfer to the wallet's address is a Deposit, from it a Withdrawal (the address is taken from --wallet-address, or found as the one address on every row); the token comes from tokenAddress (TRX when empty); isConfirm true is Completed, false Confirming. The transaction id is derived from wallet, hash, token, from, to and value.",
    detect: [['Tx Hash'], ['tokenAddress'], ['value'], [/^blockTime\(/i]],
    exampleHeaders: TRONSCAN_EXAMPLE,
    mappingFor: (headers) => {
      const utc = findHeader(headers, 'blockTime(UTC)');
      const local = findHeader(headers, /^blockTime\(UTC([+-]\d{1,2})\)$/i);
      const time = utc ?? local ?? 'blockTime(UTC)';
      const offsetHours = !utc && local ? Number(/UTC([+-]\d{1,2})/i.exec(local)![1]) : 0;
      const offset = `${offsetHours < 0 ? '-' : '+'}${String(Math.abs(offsetHours)).padStart(2, '0')}:00`;
      return mapping({
        columns: {
          hash: findHeader(headers, 'Tx Hash') ?? 'Tx Hash',
          created_at: time,
          from: findHeader(headers, 'from') ?? 'from',
          to: findHeader(headers, 'to') ?? 'to',
          amount: findHeader(headers, 'value') ?? 'value',
          token_contract: findHeader(headers, 'tokenAddress') ?? 'tokenAddress',
          token_symbol: findHeader(headers, 'symbol') ?? 'symbol',
          status: findHeader(headers, 'isConfirm') ?? 'isConfirm',
        },
        constants: { chain_id: 'TRON' },
        values: { status: { true: 'Completed', false: 'Confirming', confirmed: 'Completed', unconfirmed: 'Confirming' } },
        number: { decimal_separator: '.', thousands_separator: ',' },
        date: { format: 'auto', utc_offset: offset },
        id_fields: ['hash', 'token_id', 'from', 'to', 'amount'],
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
