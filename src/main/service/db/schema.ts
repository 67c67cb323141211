import { sql } from 'drizzle-orm';
import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/* Times are integer Unix milliseconds; amounts are exact decimal strings; booleans are 0/1. */

const timestamps = {
  created_at: integer('created_at').notNull(),
  updated_at: integer('updated_at').notNull(),
};

/*
 * The catalogue, under the source description's names (its fields first, then the additions).
 * enabled, can_deposit and can_withdraw are the user's to change, like the thresholds and templates.
 */
export const chains = sqliteTable(
  'chains',
  {
    chain_id: text('chain_id').primaryKey(),
    chain_identifier: text('chain_identifier').notNull(),
    native_token_id: text('native_token_id').notNull(),
    confirming_threshold: integer('confirming_threshold').notNull(),
    explorer_tx_url: text('explorer_tx_url').notNull(),
    explorer_address_url: text('explorer_address_url').notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull().default(true),
    name: text('name').notNull(),
    is_testnet: integer('is_testnet', { mode: 'boolean' }).notNull().default(false),
    explorer_url: text('explorer_url').notNull(),
    /**
     * The id a node of the chain must answer (EVM eth_chainId in decimal; TRON's from its genesis
     * block), '' when unknown: not a field of the /nps answer (shared/catalogue.ts, networkId).
     */
    network_id: text('network_id').notNull().default(''),
    /** Set once the user edits the row; seeding then leaves it alone. */
    user_modified: integer('user_modified', { mode: 'boolean' }).notNull().default(false),
    ...timestamps,
  },
  (t) => [index('chains_identifier_idx').on(t.chain_identifier)],
);

export const tokens = sqliteTable(
  'tokens',
  {
    chain_id: text('chain_id')
      .notNull()
      .references(() => chains.chain_id),
    token_id: text('token_id').primaryKey(),
    symbol: text('symbol').notNull(),
    contract_address: text('contract_address').notNull().default(''),
    decimal: integer('decimal').notNull(),
    dust_threshold: text('dust_threshold').notNull().default('0'),
    can_deposit: integer('can_deposit', { mode: 'boolean' }).notNull().default(true),
    can_withdraw: integer('can_withdraw', { mode: 'boolean' }).notNull().default(true),
    name: text('name').notNull(),
    is_native: integer('is_native', { mode: 'boolean' }).notNull().default(false),
    user_modified: integer('user_modified', { mode: 'boolean' }).notNull().default(false),
    ...timestamps,
  },
  (t) => [index('tokens_chain_idx').on(t.chain_id, t.token_id)],
);

/** A wallet: its UUID, and the name and notes the user gives it ('' until named; names are unique ignoring case). */
export const wallets = sqliteTable(
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

/**
 * The wallet's own addresses, per chain (EVM addresses stored lower-case): an address belongs to
 * one wallet on a chain. The one on a file's chain tells deposits from withdrawals (ledger/import.ts).
 */
export const walletAddresses = sqliteTable(
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
    created_at: integer('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.wallet_id, t.chain_id, t.address] }),
    uniqueIndex('wallet_addresses_chain_address_idx').on(t.chain_id, t.address),
  ],
);

export const imports = sqliteTable('imports', {
  import_id: text('import_id').primaryKey(),
  file_name: text('file_name').notNull(),
  file_sha256: text('file_sha256').notNull(),
  file_size: integer('file_size').notNull(),
  format: text('format').notNull(),
  preset: text('preset').notNull(),
  rows_total: integer('rows_total').notNull(),
  added: integer('added').notNull(),
  updated: integer('updated').notNull(),
  unchanged: integer('unchanged').notNull(),
  rejected: integer('rejected').notNull(),
  started_at: integer('started_at').notNull(),
  finished_at: integer('finished_at').notNull(),
  /**
   * How the file's rows were read (preset, mapping, choices, wallet, catalogue), hashed: with the
   * file's SHA-256 it tells a later import of the same file read the same way (ledger/import.ts).
   * NULL for imports recorded before it was kept.
   */
  read_fingerprint: text('read_fingerprint'),
  /** The wallet every row went to, for a file without a wallet_id column; NULL otherwise and for imports recorded before it was kept. */
  wallet_id: text('wallet_id'),
  /** How the file was read (the report's read_as: chain, decimal separator, date order, time zone, wallet address), as JSON; NULL before it was kept. */
  read_as: text('read_as'),
  /** Set when the import was rolled back as a whole (ledger/undo.ts): when, and by whom. */
  undone_at: integer('undone_at'),
  undone_by: text('undone_by'),
});

/**
 * What an import replaced: each record it updated, as it stood before (the record's row as JSON),
 * and the import that had written that version. Undoing the import puts these back.
 */
export const importReplaced = sqliteTable(
  'import_replaced',
  {
    import_id: text('import_id')
      .notNull()
      .references(() => imports.import_id, { onDelete: 'cascade' }),
    transaction_id: text('transaction_id').notNull(),
    /** The record's row before the import, JSON with the `transactions` columns. */
    previous: text('previous').notNull(),
    /** The import that had written the previous version (null: none recorded). */
    previous_import_id: text('previous_import_id'),
  },
  (t) => [primaryKey({ columns: [t.import_id, t.transaction_id] }), index('import_replaced_previous_idx').on(t.previous_import_id)],
);

export const importRejections = sqliteTable(
  'import_rejections',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    import_id: text('import_id')
      .notNull()
      .references(() => imports.import_id, { onDelete: 'cascade' }),
    row_number: integer('row_number').notNull(),
    column: text('column').notNull(),
    reason: text('reason').notNull(),
    /** The cell's text as the file has it ("" for a problem of the whole row). */
    value: text('value').notNull().default(''),
  },
  (t) => [index('import_rejections_import_idx').on(t.import_id, t.row_number)],
);

/**
 * The names the ledger's rows hold by number (db/ledger-sql.ts): wallet, chain, token and import
 * ids. A name is never removed, so a number always means the one name.
 */
export const ledgerNames = sqliteTable(
  'ledger_names',
  {
    no: integer('no').primaryKey(),
    name: text('name').notNull(),
  },
  (t) => [uniqueIndex('ledger_names_name_idx').on(t.name)],
);

/** A column declared BLOB has no affinity: SQLite keeps a value as written (an encoded key, or the text it could not encode). */
const anyValue = (name: string) => blob(name, { mode: 'buffer' });

/*
 * The ledger, encoded (db/ledger-sql.ts says how): the records are read and written through the
 * view `transactions`, under the contract's names. `tx_key` is unique through an index of its own
 * rather than the table's primary key, so a bulk import into an empty ledger can drop it with the
 * others and build it once at the end (see ledger/import-repository.ts); every index is part of one
 * import transaction. Identifiers that are often not recorded (a deposit's request_id, a rejected
 * transfer's hash) are indexed only where recorded: a lookup by value never needs the rows without
 * one. Column order is the view's (the contract's fields, then the store's own).
 */
export const ledgerRows = sqliteTable(
  'ledger_rows',
  {
    tx_key: anyValue('tx_key').notNull(),
    wallet_no: integer('wallet_no').notNull(),
    type_key: anyValue('type_key').notNull(),
    status_key: anyValue('status_key').notNull(),
    amount: text('amount').notNull(),
    to: text('to'),
    fee_ratio: text('fee_ratio'),
    fee_fixed: text('fee_fixed'),
    fee: text('fee'),
    er: text('er'),
    amount_actual: text('amount_actual'),
    hash_key: anyValue('hash_key'),
    chain_no: integer('chain_no').notNull(),
    token_no: integer('token_no').notNull(),
    created_at: integer('created_at'),
    confirmed_at: integer('confirmed_at'),
    completed_at: integer('completed_at'),
    request_key: anyValue('request_key'),
    import_no: integer('import_no'),
    updated_at: integer('updated_at').notNull(),
    /**
     * Which movement of its transaction the record is (ledger/movement.ts): 0 the native transfer,
     * 1 + n the n-th internal transfer, 1,000,000 + n the token transfer of log index (or position) n.
     * A lookup by hash that the claim cannot narrow takes the lowest.
     */
    movement: integer('movement').notNull().default(0),
  },
  (t) => [
    uniqueIndex('transactions_id_idx').on(t.tx_key),
    /**
     * A hash's first 8 bytes (db/ledger-sql.ts `hashIndexKey`), not the whole hash: every lookup by
     * hash names the same expression, then compares the whole hash, and a search by a hash's first
     * characters reads a range of it (migration 0015; it held the last 8 bytes before).
     */
    index('transactions_hash_idx')
      .on(sql`substr(${t.hash_key}, 1, 8)`)
      .where(sql`hash_key IS NOT NULL`),
    index('transactions_request_idx')
      .on(t.request_key)
      .where(sql`request_key IS NOT NULL`),
    index('transactions_wallet_created_idx').on(t.wallet_no, t.created_at),
    index('transactions_chain_token_idx').on(t.chain_no, t.token_no),
    /**
     * The transaction list's order (created_at descending, then rowid: the order records were added
     * in): pages of a large ledger without a sort.
     */
    index('transactions_created_idx').on(sql`${t.created_at} desc`),
  ],
);

export const apiKeys = sqliteTable('api_keys', {
  /** Ed25519 public key, 64 lower-case hex characters. The secret is never stored. */
  api_key: text('api_key').primaryKey(),
  label: text('label').notNull(),
  /** true: the key may act on every wallet; false: only those in api_key_wallets. */
  all_wallets: integer('all_wallets', { mode: 'boolean' }).notNull(),
  created_at: integer('created_at').notNull(),
  revoked_at: integer('revoked_at'),
  last_used_at: integer('last_used_at'),
});

export const apiKeyWallets = sqliteTable(
  'api_key_wallets',
  {
    api_key: text('api_key')
      .notNull()
      .references(() => apiKeys.api_key, { onDelete: 'cascade' }),
    wallet_id: text('wallet_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.api_key, t.wallet_id] })],
);

export const usedNonces = sqliteTable(
  'used_nonces',
  {
    api_key: text('api_key').notNull(),
    nonce: text('nonce').notNull(),
    /** When the nonce stops mattering (nonce time + window); rows past it are pruned. */
    expires_at: integer('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.api_key, t.nonce] }), index('used_nonces_expiry_idx').on(t.expires_at)],
);

export const verificationRuns = sqliteTable(
  'verification_runs',
  {
    run_id: text('run_id').primaryKey(),
    /** 'api' (signed request), 'ui' (books file in the desktop app) or 'cli'. */
    source: text('source').notNull(),
    api_key: text('api_key'),
    label: text('label').notNull().default(''),
    wallet_id: text('wallet_id'),
    shape: text('shape').notNull().default('A'),
    options: text('options').notNull().default('{}'),
    item_count: integer('item_count').notNull(),
    matched: integer('matched').notNull(),
    mismatched: integer('mismatched').notNull(),
    not_found: integer('not_found').notNull(),
    created_at: integer('created_at').notNull(),
    /** A books run: rows of the file that could not become a claim, how many, and the first 1000 (JSON [{row, field, reason}]). */
    rejected_count: integer('rejected_count').notNull().default(0),
    rejected: text('rejected').notNull().default('[]'),
    /**
     * A two-way run (a books run): the period its ledger side covers, Unix ms, both ends inclusive
     * (null: open), and the counts of the groups beyond matched / mismatched / not found.
     */
    two_way: integer('two_way', { mode: 'boolean' }).notNull().default(false),
    period_from: integer('period_from'),
    period_to: integer('period_to'),
    not_in_books: integer('not_in_books').notNull().default(0),
    duplicates: integer('duplicates').notNull().default(0),
  },
  (t) => [index('verification_runs_created_idx').on(t.created_at)],
);

/** A two-way run's ledger records in its period and scope that no claim of the books found, with their exception. */
export const runUnbooked = sqliteTable(
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

/**
 * A run's items in chunks of up to 1000 (one per verification batch): the claims as sent and
 * their outcomes as two JSON documents, so storing a batch writes one row, not a thousand.
 */
export const verificationChunks = sqliteTable(
  'verification_chunks',
  {
    run_id: text('run_id')
      .notNull()
      .references(() => verificationRuns.run_id, { onDelete: 'cascade' }),
    /** idx of the chunk's first item; the items that follow are first_idx + 1, + 2, ... */
    first_idx: integer('first_idx').notNull(),
    item_count: integer('item_count').notNull(),
    matched: integer('matched').notNull(),
    mismatched: integer('mismatched').notNull(),
    not_found: integer('not_found').notNull(),
    /** Duplicate claims of a two-way run (counted here only). */
    duplicates: integer('duplicates').notNull().default(0),
    /** JSON array: each item as the caller sent it. */
    claims: text('claims').notNull(),
    /** JSON array, one per item: [transaction_id or null, result 0/1, [false flags], ticket_id or null]. */
    outcomes: text('outcomes').notNull(),
  },
  (t) => [primaryKey({ columns: [t.run_id, t.first_idx] })],
);

export const tickets = sqliteTable(
  'tickets',
  {
    ticket_id: text('ticket_id').primaryKey(),
    wallet_id: text('wallet_id').notNull(),
    /** '' for an exception with no record (a claim not in the ledger, a balance difference). */
    transaction_id: text('transaction_id').notNull(),
    status: text('status', { enum: ['Pending', 'Resolved', 'Dismissed'] }).notNull(),
    /**
     * mismatch (the API's tickets), not_in_ledger, not_in_books, duplicate, balance
     * (shared/tickets.ts). GET /nps/ticket answers mismatches only.
     */
    kind: text('kind').notNull().default('mismatch'),
    /** What the exception is about, so one Pending exception of a kind stands per subject (raiseExceptions in tickets/repository.ts). */
    subject: text('subject').notNull().default(''),
    /** The record's (or the claim's) chain, token and amount, for the queue's filters. */
    chain_id: text('chain_id').notNull().default(''),
    token_id: text('token_id').notNull().default(''),
    amount: text('amount').notNull().default(''),
    abnormals: text('abnormals').notNull(),
    desc: text('desc').notNull(),
    /** The claim that last opened or updated the ticket (JSON), shown beside the record. */
    claimed: text('claimed').notNull(),
    run_id: text('run_id'),
    /**
     * One more at every change of the row: what the window saw is sent back with a transition,
     * which is refused when the ticket changed since (optimistic concurrency, tickets/repository.ts).
     */
    version: integer('version').notNull().default(0),
    ...timestamps,
  },
  (t) => [
    index('tickets_wallet_status_idx').on(t.wallet_id, t.status, t.updated_at),
    index('tickets_tx_status_idx').on(t.transaction_id, t.status),
    index('tickets_kind_subject_idx').on(t.kind, t.subject, t.status),
    index('tickets_status_updated_idx').on(t.status, t.updated_at),
  ],
);

export const ticketEvents = sqliteTable(
  'ticket_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ticket_id: text('ticket_id')
      .notNull()
      .references(() => tickets.ticket_id, { onDelete: 'cascade' }),
    /** opened, updated, status */
    kind: text('kind').notNull(),
    from_status: text('from_status'),
    to_status: text('to_status'),
    note: text('note').notNull().default(''),
    actor: text('actor').notNull().default(''),
    at: integer('at').notNull(),
  },
  (t) => [index('ticket_events_ticket_idx').on(t.ticket_id, t.id)],
);

/**
 * Books mappings kept for the next file of the same layout (reconcile/mappings.ts): keyed by the
 * books header (`header_key`, its columns trimmed and lower-cased) and the wallet the run was for
 * (NULL: every wallet). A run remembers the mapping it used in the entry of its header and wallet;
 * `named` is set once the user names one (Save mapping as…), otherwise the entry carries the name
 * of the file it was first remembered from. Names are unique, ignoring case.
 */
export const booksMappings = sqliteTable(
  'books_mappings',
  {
    mapping_id: text('mapping_id').primaryKey(),
    name: text('name').notNull(),
    named: integer('named', { mode: 'boolean' }).notNull().default(false),
    header_key: text('header_key').notNull(),
    /** The header's columns as the file wrote them (JSON array), for showing and for checking an edit. */
    headers: text('headers').notNull(),
    wallet_id: text('wallet_id'),
    /** The BooksMapping (JSON), as shared/reconcile.ts reads it. */
    mapping: text('mapping').notNull(),
    /** What else the run was given (JSON): tolerances, time type, two-way, the period and its zone. */
    options: text('options').notNull().default('{}'),
    ...timestamps,
    used_at: integer('used_at').notNull(),
  },
  (t) => [uniqueIndex('books_mappings_name_idx').on(sql`lower(${t.name})`), index('books_mappings_header_idx').on(t.header_key, t.used_at)],
);

export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updated_at: integer('updated_at')
    .notNull()
    .default(sql`(unixepoch() * 1000)`),
});

/**
 * Contracts the user ignores per chain (spam tokens): an import skips their rows and counts them
 * (ledger/rows.ts). EVM contracts are kept lower-case; the key is (chain, contract).
 */
export const ignoredTokens = sqliteTable(
  'ignored_tokens',
  {
    chain_id: text('chain_id').notNull(),
    contract_address: text('contract_address').notNull(),
    symbol: text('symbol').notNull().default(''),
    name: text('name').notNull().default(''),
    ignored_at: integer('ignored_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.chain_id, t.contract_address] })],
);

/**
 * A check of ledger records against the chains' nodes (onchain/checks.ts): its scope, where it has
 * got to (`cursor`, the last record's rowid done: a stopped check resumes after it) and its counts.
 */
export const onchainChecks = sqliteTable(
  'onchain_checks',
  {
    check_id: text('check_id').primaryKey(),
    /** wallet|from|to: a new check of the same scope resumes one that stopped. */
    scope_key: text('scope_key').notNull(),
    wallet_id: text('wallet_id'),
    period_from: integer('period_from'),
    period_to: integer('period_to'),
    time_zone: text('time_zone').notNull().default('UTC'),
    /** running, done, cancelled, interrupted, failed */
    state: text('state').notNull(),
    total: integer('total').notNull().default(0),
    without_hash: integer('without_hash').notNull().default(0),
    cursor: integer('cursor').notNull().default(0),
    agrees: integer('agrees').notNull().default(0),
    differs: integer('differs').notNull().default(0),
    pending: integer('pending').notNull().default(0),
    not_found: integer('not_found').notNull().default(0),
    unchecked: integer('unchecked').notNull().default(0),
    retries: integer('retries').notNull().default(0),
    resumed: integer('resumed').notNull().default(0),
    error: text('error').notNull().default(''),
    actor: text('actor').notNull().default(''),
    started_at: integer('started_at').notNull(),
    updated_at: integer('updated_at').notNull(),
    finished_at: integer('finished_at'),
  },
  (t) => [index('onchain_checks_scope_idx').on(t.scope_key, t.started_at), index('onchain_checks_started_idx').on(t.started_at)],
);

/** What a check found of each record it covered (OnchainItem in shared/onchain.ts). */
export const onchainResults = sqliteTable(
  'onchain_results',
  {
    check_id: text('check_id')
      .notNull()
      .references(() => onchainChecks.check_id, { onDelete: 'cascade' }),
    /** The record's rowid in the ledger: the check's order, and where it resumes. */
    record_no: integer('record_no').notNull(),
    transaction_id: text('transaction_id').notNull(),
    /** The record's wallet, chain, token and hash as checked (the record may leave the ledger later). */
    wallet_id: text('wallet_id').notNull(),
    chain_id: text('chain_id').notNull(),
    token_id: text('token_id').notNull(),
    hash: text('hash').notNull(),
    outcome: text('outcome').notNull(),
    /** Comma-separated OnchainField names (differs). */
    fields: text('fields').notNull().default(''),
    reason: text('reason').notNull().default(''),
    /** JSON: the chain's values of the compared fields. */
    chain: text('chain').notNull().default('{}'),
    confirmations: integer('confirmations'),
    block_number: text('block_number'),
    ticket_id: text('ticket_id'),
    checked_at: integer('checked_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.check_id, t.record_no] }), index('onchain_results_outcome_idx').on(t.check_id, t.outcome, t.record_no)],
);
