/**
 * Labels for people, keyed by the contract's field names. The names themselves (and which fields a
 * screen shows, in what order) come from src/shared; this map only says how to read them aloud.
 * Every screen shows the label with the field name beside it (components/ui.tsx, FieldName), so
 * what the screen calls "Confirming threshold" is visibly `confirming_threshold` on the wire.
 */
const LABELS: Record<string, string> = {
  // transaction record (the source's sixteen, then the additions)
  wallet_id: 'Wallet',
  type: 'Type',
  status: 'Status',
  amount: 'Amount',
  to: 'To',
  fee_ratio: 'Fee ratio',
  fee_fixed: 'Fee fixed',
  fee: 'Fee',
  er: 'ER',
  amount_actual: 'Amount actual',
  hash: 'Hash',
  chain_id: 'Chain ID',
  token_id: 'Token ID',
  created_at: 'Created (UTC)',
  confirmed_at: 'Confirmed (UTC)',
  completed_at: 'Completed (UTC)',
  transaction_id: 'Transaction ID',
  request_id: 'Request ID',
  import_id: 'Last import',
  updated_at: 'Updated (UTC)',
  // a claim's own fields
  time: 'Time (UTC)',
  // chain
  chain_identifier: 'Chain identifier',
  native_token_id: 'Native token ID',
  confirming_threshold: 'Confirming threshold',
  explorer_tx_url: 'Explorer tx URL',
  explorer_address_url: 'Explorer address URL',
  enabled: 'Enabled',
  name: 'Name',
  is_testnet: 'Testnet',
  explorer_url: 'Explorer',
  native_symbol: 'Native symbol',
  native_decimal: 'Native decimal',
  // token
  symbol: 'Symbol',
  contract_address: 'Contract address',
  decimal: 'Decimal',
  dust_threshold: 'Dust threshold',
  can_deposit: 'Can deposit',
  can_withdraw: 'Can withdraw',
  is_native: 'Native coin',
};

/** The label of a field; a field without one is shown by its name. */
export const labelOf = (field: string): string => LABELS[field] ?? field;
