import { LEDGER_FIELDS } from '../../../shared/ledger';

/* Native-format rows for the import's tests: a header, and rows made from a few fields. */

type Fields = Partial<Record<(typeof LEDGER_FIELDS)[number], string>>;

export const HEADER = LEDGER_FIELDS.join(',');
export const W = '11111111-2222-4333-8444-555555555555';
export const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
export const evmHash = (n: number) => `0x${String(n).padStart(64, 'a')}`;
/** A native CSV row; fields not given are empty. */
const row = (fields: Fields) => LEDGER_FIELDS.map((f) => fields[f] ?? '').join(',');
/** A valid row n (a USDT deposit of n.5 into W), with fields replaced by `extra`. */
export const good = (n: number, extra: Fields = {}) =>
  row({
    transaction_id: id(n),
    wallet_id: W,
    type: 'Deposit',
    status: 'Completed',
    amount: `${n}.5`,
    chain_id: 'ETH',
    token_id: 'ETH_USDT',
    hash: evmHash(n),
    created_at: String(1767225600000 + n * 1000),
    ...extra,
  });
/** A text source of the header and these lines. */
export const text = (lines: string[], name = 'ledger.csv') => ({ name, text: [HEADER, ...lines].join('\n') + '\n' });
