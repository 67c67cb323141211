import { sql } from 'drizzle-orm';
import { bigint, boolean, customType, index, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';

/*
 * The store's tables for PostgreSQL (team mode, docs/team.md): the same tables, columns, keys and
 * indexes as schema.ts, in the same order, whose comments say what each holds. schema-pg.test.ts
 * compares the two table by table and column by column: change both, then `npm run db:generate` and
 * `npm run db:generate:pg`.
 *
 * What differs, by rule (docs/team.md, "Decisions taken"):
 * - every integer is a bigint read as a JS number (times are Unix milliseconds);
 * - a 0/1 boolean is a boolean;
 * - amounts stay text, ordered by decimal_key (migration 0001 of migrations-pg);
 * - SQLite's implicit rowid, where SQL reads it (ROWID_TABLES), is a column, an identity: the same
 *   SQL orders and seeks by it;
 * - a column SQLite keeps without affinity (the ledger's encoded keys) is bytea.
 */

const int = (name: string) => bigint(name, { mode: 'number' });

/**
 * The tables whose SQLite rowid the service's SQL reads (the ledger's order and a check's resume
 * point, a run's, a check's and an import's tie-break). A table joins the list, here and in its
 * columns, when SQL starts to read its rowid.
 */
export const ROWID_TABLES = ['imports', 'ledger_rows', 'verification_runs', 'onchain_checks'] as const;

/** SQLite's rowid: the order rows were added in, which SQL reads as `rowid` on both engines. */
const rowid = () => ({ rowid: int('rowid').generatedByDefaultAsIdentity() });

/** drizzle's pg-core has no bytea column. */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

const timestamps = {
  created_at: int('created_at').notNull(),
  updated_at: int('updated_at').notNull(),
};

export const chains = pgTable(
  'chains',
  {
    chain_id: text('chain_id').primaryKey(),
    chain_identifier: text('chain_identifier').notNull(),
    native_token_id: text('native_token_id').notNull(),
    confirming_threshold: int('confirming_threshold').notNull(),
    explorer_tx_url: text('explorer_tx_url').notNull(),
    explorer_address_url: text('explorer_address_url').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    name: text('name').notNull(),
    is_testnet: boolean('is_testnet').notNull().default(false),
    explorer_url: text('explorer_url').notNull(),
    network_id: text('network_id').notNull().default(''),
    user_modified: boolean('user_modified').notNull().default(false),
    ...timestamps,
  },
  (t) => [index('chains_identifier_idx').on(t.chain_identifier)],
);

export const tokens = pgTable(
  'tokens',
  {
    chain_id: text('chain_id')
      .notNull()
      .references(() => chains.chain_id),
    token_id: text('token_id').primaryKey(),
    symbol: text('symbol').notNull(),
    contract_address: text('contract_address').notNull().default(''),
    decimal: int('decimal').notNull(),
    dust_threshold: text('dust_threshold').notNull().default('0'),
    can_deposit: boolean('can_deposit').notNull().default(true),
    can_withdraw: boolean('can_withdraw').notNull().default(true),
    name: text('name').notNull(),
    is_native: boolean('is_native').notNull().default(false),
    user_modified: boolean('user_modified').notNull().default(false),
    ...timestamps,
  },
  (t) => [index('tokens_chain_idx').on(t.chain_id, t.token_id)],
);

export const wallets = pgTable(
  'wallets',
  {
    wallet_id: text('wallet_id').primaryKey(),
    name: text('name').notNull().default(''),
    notes: text('notes').notNull().default(''),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('wallets_name_idx')
      .on(sql`lower(${t.name})`)
      .where(sql`${t.name} <> ''`),
  ],
);

export const walletAddresses = pgTable(
  'wallet_addresses',
  {
    wallet_id: text('wallet_id')
      .notNull()
      .references(() => wallets.wallet_id, { onDelete: 'cascade' }),
    chain_id: text('chain_id')
      .notNull()
      .references(() => chains.chain_id),
    address: text('address').notNull(),
    label: text('label').notNull().default(''),
    created_at: int('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.wallet_id, t.chain_id, t.address] }),
    uniqueIndex('wallet_addresses_chain_address_idx').on(t.chain_id, t.address),
  ],
);

export const imports = pgTable('imports', {
  import_id: text('import_id').primaryKey(),
  file_name: text('file_name').notNull(),
  file_sha256: text('file_sha256').notNull(),
  file_size: int('file_size').notNull(),
  format: text('format').notNull(),
  preset: text('preset').notNull(),
  rows_total: int('rows_total').notNull(),
  added: int('added').notNull(),
  updated: int('updated').notNull(),
  unchanged: int('unchanged').notNull(),
  rejected: int('rejected').notNull(),
  started_at: int('started_at').notNull(),
  finished_at: int('finished_at').notNull(),
  read_fingerprint: text('read_fingerprint'),
  wallet_id: text('wallet_id'),
  read_as: text('read_as'),
  undone_at: int('undone_at'),
  undone_by: text('undone_by'),
  ...rowid(),
});

export const importReplaced = pgTable(
  'import_replaced',
  {
    import_id: text('import_id')
      .notNull()
      .references(() => imports.import_id, { onDelete: 'cascade' }),
    transaction_id: text('transaction_id').notNull(),
    previous: text('previous').notNull(),
    previous_import_id: text('previous_import_id'),
  },
  (t) => [primaryKey({ columns: [t.import_id, t.transaction_id] }), index('import_replaced_previous_idx').on(t.previous_import_id)],
);

export const importRejections = pgTable(
  'import_rejections',
  {
    id: int('id').primaryKey().generatedByDefaultAsIdentity(),
    import_id: text('import_id')
      .notNull()
      .references(() => imports.import_id, { onDelete: 'cascade' }),
    row_number: int('row_number').notNull(),
    column: text('column').notNull(),
    reason: text('reason').notNull(),
    value: text('value').notNull().default(''),
  },
  (t) => [index('import_rejections_import_idx').on(t.import_id, t.row_number)],
);

export const ledgerNames = pgTable(
  'ledger_names',
  {
    no: int('no').primaryKey().generatedByDefaultAsIdentity(),
    name: text('name').notNull(),
  },
  (t) => [uniqueIndex('ledger_names_name_idx').on(t.name)],
);

export const ledgerRows = pgTable(
  'ledger_rows',
  {
    tx_key: bytea('tx_key').notNull(),
    wallet_no: int('wallet_no').notNull(),
    type_key: bytea('type_key').notNull(),
    status_key: bytea('status_key').notNull(),
    amount: text('amount').notNull(),
    to: text('to'),
    fee_ratio: text('fee_ratio'),
    fee_fixed: text('fee_fixed'),
    fee: text('fee'),
    er: text('er'),
    amount_actual: text('amount_actual'),
    hash_key: bytea('hash_key'),
    chain_no: int('chain_no').notNull(),
    token_no: int('token_no').notNull(),
    created_at: int('created_at'),
    confirmed_at: int('confirmed_at'),
    completed_at: int('completed_at'),
    request_key: bytea('request_key'),
    import_no: int('import_no'),
    updated_at: int('updated_at').notNull(),
    movement: int('movement').notNull().default(0),
    ...rowid(),
  },
  (t) => [
    uniqueIndex('transactions_id_idx').on(t.tx_key),
    index('transactions_hash_idx')
      .on(sql`substr(${t.hash_key}, 1, 8)`)
      .where(sql`hash_key IS NOT NULL`),
    index('transactions_request_idx')
      .on(t.request_key)
      .where(sql`request_key IS NOT NULL`),
    index('transactions_wallet_created_idx').on(t.wallet_no, t.created_at),
    index('transactions_chain_token_idx').on(t.chain_no, t.token_no),
    index('transactions_created_idx').on(sql`${t.created_at} desc`),
    // On SQLite the rowid is the table's key: records are found and resumed by it.
    uniqueIndex('ledger_rows_rowid_idx').on(t.rowid),
  ],
);

export const apiKeys = pgTable('api_keys', {
  api_key: text('api_key').primaryKey(),
  label: text('label').notNull(),
  all_wallets: boolean('all_wallets').notNull(),
  created_at: int('created_at').notNull(),
  revoked_at: int('revoked_at'),
  last_used_at: int('last_used_at'),
});

export const apiKeyWallets = pgTable(
  'api_key_wallets',
  {
    api_key: text('api_key')
      .notNull()
      .references(() => apiKeys.api_key, { onDelete: 'cascade' }),
    wallet_id: text('wallet_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.api_key, t.wallet_id] })],
);

export const usedNonces = pgTable(
  'used_nonces',
  {
    api_key: text('api_key').notNull(),
    nonce: text('nonce').notNull(),
    expires_at: int('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.api_key, t.nonce] }), index('used_nonces_expiry_idx').on(t.expires_at)],
);

export const verificationRuns = pgTable(
  'verification_runs',
  {
    run_id: text('run_id').primaryKey(),
    source: text('source').notNull(),
    api_key: text('api_key'),
    label: text('label').notNull().default(''),
    wallet_id: text('wallet_id'),
    shape: text('shape').notNull().default('A'),
    options: text('options').notNull().default('{}'),
    item_count: int('item_count').notNull(),
    matched: int('matched').notNull(),
    mismatched: int('mismatched').notNull(),
    not_found: int('not_found').notNull(),
    created_at: int('created_at').notNull(),
    rejected_count: int('rejected_count').notNull().default(0),
    rejected: text('rejected').notNull().default('[]'),
    two_way: boolean('two_way').notNull().default(false),
    period_from: int('period_from'),
    period_to: int('period_to'),
    not_in_books: int('not_in_books').notNull().default(0),
    duplicates: int('duplicates').notNull().default(0),
    ...rowid(),
  },
  (t) => [index('verification_runs_created_idx').on(t.created_at)],
);

export const runUnbooked = pgTable(
  'run_unbooked',
  {
    run_id: text('run_id')
      .notNull()
      .references(() => verificationRuns.run_id, { onDelete: 'cascade' }),
    transaction_id: text('transaction_id').notNull(),
    ticket_id: text('ticket_id'),
  },
  (t) => [primaryKey({ columns: [t.run_id, t.transaction_id] })],
);

export const verificationChunks = pgTable(
  'verification_chunks',
  {
    run_id: text('run_id')
      .notNull()
      .references(() => verificationRuns.run_id, { onDelete: 'cascade' }),
    first_idx: int('first_idx').notNull(),
    item_count: int('item_count').notNull(),
    matched: int('matched').notNull(),
    mismatched: int('mismatched').notNull(),
    not_found: int('not_found').notNull(),
    duplicates: int('duplicates').notNull().default(0),
    claims: text('claims').notNull(),
    outcomes: text('outcomes').notNull(),
  },
  (t) => [primaryKey({ columns: [t.run_id, t.first_idx] })],
);

export const tickets = pgTable(
  'tickets',
  {
    ticket_id: text('ticket_id').primaryKey(),
    wallet_id: text('wallet_id').notNull(),
    transaction_id: text('transaction_id').notNull(),
    status: text('status', { enum: ['Pending', 'Resolved', 'Dismissed'] }).notNull(),
    kind: text('kind').notNull().default('mismatch'),
    subject: text('subject').notNull().default(''),
    chain_id: text('chain_id').notNull().default(''),
    token_id: text('token_id').notNull().default(''),
    amount: text('amount').notNull().default(''),
    abnormals: text('abnormals').notNull(),
    desc: text('desc').notNull(),
    claimed: text('claimed').notNull(),
    run_id: text('run_id'),
    version: int('version').notNull().default(0),
    ...timestamps,
  },
  (t) => [
    index('tickets_wallet_status_idx').on(t.wallet_id, t.status, t.updated_at),
    index('tickets_tx_status_idx').on(t.transaction_id, t.status),
    index('tickets_kind_subject_idx').on(t.kind, t.subject, t.status),
    index('tickets_status_updated_idx').on(t.status, t.updated_at),
  ],
);

export const ticketEvents = pgTable(
  'ticket_events',
  {
    id: int('id').primaryKey().generatedByDefaultAsIdentity(),
    ticket_id: text('ticket_id')
      .notNull()
      .references(() => tickets.ticket_id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    from_status: text('from_status'),
    to_status: text('to_status'),
    note: text('note').notNull().default(''),
    actor: text('actor').notNull().default(''),
    at: int('at').notNull(),
  },
  (t) => [index('ticket_events_ticket_idx').on(t.ticket_id, t.id)],
);

export const booksMappings = pgTable(
  'books_mappings',
  {
    mapping_id: text('mapping_id').primaryKey(),
    name: text('name').notNull(),
    named: boolean('named').notNull().default(false),
    header_key: text('header_key').notNull(),
    headers: text('headers').notNull(),
    wallet_id: text('wallet_id'),
    mapping: text('mapping').notNull(),
    options: text('options').notNull().default('{}'),
    ...timestamps,
    used_at: int('used_at').notNull(),
  },
  (t) => [uniqueIndex('books_mappings_name_idx').on(sql`lower(${t.name})`), index('books_mappings_header_idx').on(t.header_key, t.used_at)],
);

export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updated_at: int('updated_at')
    .notNull()
    .default(sql`(extract(epoch from now()) * 1000)::bigint`),
});

export const ignoredTokens = pgTable(
  'ignored_tokens',
  {
    chain_id: text('chain_id').notNull(),
    contract_address: text('contract_address').notNull(),
    symbol: text('symbol').notNull().default(''),
    name: text('name').notNull().default(''),
    ignored_at: int('ignored_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.chain_id, t.contract_address] })],
);

export const onchainChecks = pgTable(
  'onchain_checks',
  {
    check_id: text('check_id').primaryKey(),
    scope_key: text('scope_key').notNull(),
    wallet_id: text('wallet_id'),
    period_from: int('period_from'),
    period_to: int('period_to'),
    time_zone: text('time_zone').notNull().default('UTC'),
    state: text('state').notNull(),
    total: int('total').notNull().default(0),
    without_hash: int('without_hash').notNull().default(0),
    cursor: int('cursor').notNull().default(0),
    agrees: int('agrees').notNull().default(0),
    differs: int('differs').notNull().default(0),
    pending: int('pending').notNull().default(0),
    not_found: int('not_found').notNull().default(0),
    unchecked: int('unchecked').notNull().default(0),
    retries: int('retries').notNull().default(0),
    resumed: int('resumed').notNull().default(0),
    error: text('error').notNull().default(''),
    actor: text('actor').notNull().default(''),
    started_at: int('started_at').notNull(),
    updated_at: int('updated_at').notNull(),
    finished_at: int('finished_at'),
    ...rowid(),
  },
  (t) => [index('onchain_checks_scope_idx').on(t.scope_key, t.started_at), index('onchain_checks_started_idx').on(t.started_at)],
);

export const onchainResults = pgTable(
  'onchain_results',
  {
    check_id: text('check_id')
      .notNull()
      .references(() => onchainChecks.check_id, { onDelete: 'cascade' }),
    record_no: int('record_no').notNull(),
    transaction_id: text('transaction_id').notNull(),
    wallet_id: text('wallet_id').notNull(),
    chain_id: text('chain_id').notNull(),
    token_id: text('token_id').notNull(),
    hash: text('hash').notNull(),
    outcome: text('outcome').notNull(),
    fields: text('fields').notNull().default(''),
    reason: text('reason').notNull().default(''),
    chain: text('chain').notNull().default('{}'),
    confirmations: int('confirmations'),
    block_number: text('block_number'),
    ticket_id: text('ticket_id'),
    checked_at: int('checked_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.check_id, t.record_no] }), index('onchain_results_outcome_idx').on(t.check_id, t.outcome, t.record_no)],
);
