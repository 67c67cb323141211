/*
 * What each command says for --help: kept apart from the commands themselves, so that `--help`
 * loads none of the service (the commands are loaded when one runs).
 */

import { ChainUpdate, TokenUpdate } from '../../shared/catalogue';
import { DEFAULT_RETENTION, RETENTION_LIMITS } from '../../shared/retention';
import { EXCEPTION_KINDS, TICKET_SORTS } from '../../shared/tickets';
import { DEFAULT_RATE_LIMITS } from '../service/http/limit-defaults';

/** The catalogue fields `chains set` and `tokens set` take: the contract's, by their wire names. */
export const CHAIN_FIELDS = Object.keys(ChainUpdate.shape).filter((f) => f !== 'chain_id');
export const TOKEN_FIELDS = Object.keys(TokenUpdate.shape).filter((f) => f !== 'token_id');

export const callUsage = `npm run nps -- call METHOD PATH [--query Q] [--body JSON|@file] --secret HEX [--base URL] [--data-dir D]
  Sign a request as the /nps API expects (BIZ-API-KEY, Biz-Api-Nonce, Biz-Api-Signature), send it,
  print the response. The secret may also come from NPS_API_SECRET. The query is sent (and signed)
  exactly as given, so give it URL-encoded. The base defaults to the running service (api.json in
  the data directory), else http://127.0.0.1:8730. Exits non-zero when the answer's status is not 0.`;

export const chainsUsage = `npm run nps -- chains list [--chain-identifier ETH] [--json] [--data-dir D]
npm run nps -- chains set CHAIN_ID FIELD=VALUE... [--data-dir D]
npm run nps -- chains add CHAIN_ID --symbol MNT [--decimal 18] [--family ETH] [--name N] [--confirming-threshold N]
    [--explorer-tx-url https://.../tx/{hash}] [--explorer-address-url https://.../address/{address}] [--testnet] [--data-dir D]
  Add a chain the catalogue lacks, with its native coin (token_id = CHAIN_ID).
  FIELD is one of ${CHAIN_FIELDS.join(', ')}, e.g. chains set SETH enabled=true confirming_threshold=6.
  A changed row keeps its values when the catalogue is seeded again.`;

export const tokensUsage = `npm run nps -- tokens list [--chain-id TRON] [--json] [--data-dir D]
npm run nps -- tokens set TOKEN_ID FIELD=VALUE... [--data-dir D]
npm run nps -- tokens add CHAIN_ID --contract ADDRESS --symbol S --decimal N [--token-id ID] [--name N] [--data-dir D]
npm run nps -- tokens remove TOKEN_ID [--data-dir D]
  Add a token the catalogue lacks (an import lists the unknown tokens of a file with their contract and symbol);
  its id defaults to CHAIN_SYMBOL.
  FIELD is one of ${TOKEN_FIELDS.join(', ')}, e.g. tokens set ETH_USDT can_deposit=false dust_threshold=0.5.
  decimal may change while no ledger record of the token has an amount with more decimal places than it.
  remove: a token no ledger record uses (not a chain's native coin).`;

export const importUndoUsage = `npm run nps -- import undo IMPORT_ID [--yes] [--json] [--data-dir D]
  Undo an import as a whole: the records it added are removed, the records it updated get their earlier
  version back, and the Pending tickets of the removed records are dismissed. Says what will change, then
  asks y/N on a terminal; without a terminal it undoes only with --yes. Refused while a later import changed
  its records (undo that one first), and for an import already undone. IMPORT_ID is in the import's report
  and the import history.`;

export const importUsage = `npm run nps -- import FILE [--data-dir D] [--wallet NAME | --wallet-id W] [--wallet-address A] [--preset NAME | --map mapping.json]
    [--chain C] [--token T] [--decimal-separator .|,] [--date-order day_first|month_first] [--time-zone Z] [--dry-run] [--json]
  Import a ledger file: CSV or JSON in the native format, an explorer export (presets etherscan, etherscan-internal,
  etherscan-tokens, etherscan-token-page, etherscan-list for Etherscan, BscScan, PolygonScan, Arbiscan, Basescan,
  Optimism, Snowtrace, Mantlescan; tronscan for Tronscan TRX and TRC-20), or any file through a column mapping.
  What the file does not say is given, never guessed: --chain (an Etherscan-family file in ETH: ETH, ARBITRUM_ETH,
  OPT_ETH or BASE_ETH; token exports always, unless --token names it), --token (a file of one token that names none), --decimal-separator
  (when amounts like 1,234 could be either), --date-order (when dates like 03/04/2024 could be either),
  --time-zone (UTC, +08:00 or an IANA name: the zone of times written without one, where the file leaves it open),
  --wallet-address (the address the export was made for, when no address is on every row, and the wallet has none
  on the file's chain). --wallet NAME imports into the wallet of that name, created when none has it.
  --dry-run reports what would be added, updated and rejected without writing. Exits 1 when no row could be imported.
${importUndoUsage}`;

export const ledgerUsage = `npm run nps -- ledger export [--wallet-id W] [--chain C] [--token T] [--json] [--out FILE] [--data-dir D]
  The ledger's records in the native format: CSV (the record's fields as columns, times in Unix
  milliseconds, empty = not recorded) or, with --json, a JSON array of records under the wire names.
  Written to FILE, or to standard output. Importing the file again changes nothing.`;

export const reconcileUsage = `npm run nps -- reconcile BOOKS [--wallet NAME | --wallet-id W] [--from DATE] [--to DATE] [--time-zone Z]
                            [--map NAME|FILE] [--save-map NAME] [--amount-delta X] [--time-delta S] [--one-way] [--json]
                            [--out FILE.xlsx|.csv] [--data-dir D]
  Reconcile the books (CSV) against the ledger both ways: each claim is matched, mismatched (field by
  field), not in the ledger or a duplicate of an earlier claim; each ledger record of the wallet (or
  every wallet) created in the period that no claim found is not in the books. Every group but
  matched opens an exception in the queue. DATE is YYYY-MM-DD (the whole day) or an ISO 8601 moment,
  read in --time-zone (IANA, default UTC); no --from/--to: the ledger side covers all time. The books'
  native header is the claim's fields (request_id, transaction_id, hash, chain_id, token_id, to, type,
  amount, fee, amount_actual, status, time); other layouts are mapped: --map names a saved mapping or a
  JSON file. Without --map, the mapping saved for the file's layout is used (the wallet's first, else the
  last used), else a first guess from the header. Each run keeps its mapping for the next file of its
  layout and wallet; --save-map NAME keeps it under NAME (replacing a mapping of that name); see mappings.
  --json prints the report: summary {matched, mismatched, not_in_ledger, not_in_books, duplicates}
  and the items of each group. --out writes the auditor's report: XLSX (a summary sheet with the books
  file and its SHA-256, the period, tolerances, counts, exceptions, balances, who ran it and a sign-off;
  a sheet per group with each exception's state; the rejected books rows) or CSV (the same columns).
  Exit status 1 when there is anything to work.`;

export const mappingsUsage = `npm run nps -- mappings list [--json] [--data-dir D]
npm run nps -- mappings show NAME [--json] [--data-dir D]
npm run nps -- mappings rename NAME NEW_NAME [--data-dir D]
npm run nps -- mappings edit NAME [--map FILE] [--wallet WALLET|all] [--data-dir D]
npm run nps -- mappings remove NAME [--data-dir D]
  The books mappings kept for the next file of a layout (its header's columns): a reconcile run keeps the
  mapping it used, for its layout and wallet, named after the file until you name it (reconcile
  --save-map NAME, or rename). show prints the mapping as JSON, as reconcile --map FILE and edit --map
  FILE take it (--json: with its name, layout, wallet and last use). edit replaces the mapping with the
  file's (checked against the layout) or moves it to another wallet (all: every wallet). NAME is a
  mapping's name (ignoring case) or its ID.`;

export const walletsUsage = `npm run nps -- wallets list [--json] [--data-dir D]
npm run nps -- wallets create NAME [--notes T] [--data-dir D]
npm run nps -- wallets rename WALLET NAME [--data-dir D]
npm run nps -- wallets notes WALLET TEXT [--data-dir D]
npm run nps -- wallets address add WALLET CHAIN_ID ADDRESS [--label L] [--data-dir D]
npm run nps -- wallets address remove WALLET CHAIN_ID ADDRESS [--data-dir D]
  Name wallets and give them their addresses. WALLET is a wallet's ID or its name. Names are unique,
  ignoring case. An address belongs to one wallet per chain, and is checked for the chain's family
  (EVM addresses are kept lower-case). An import into a wallet with an address on the file's chain
  reads deposits and withdrawals by it when no --wallet-address is given.`;

export const balancesUsage = `npm run nps -- balances [--wallet WALLET] [--at DATE] [--time-zone Z] [--json] [--data-dir D]
npm run nps -- balances --from DATE --to DATE [--wallet WALLET] [--time-zone Z] [--json] [--data-dir D]
npm run nps -- balances statement --wallet WALLET --token TOKEN_ID --from DATE --to DATE [--time-zone Z] [--json] [--data-dir D]
npm run nps -- balances check --wallet WALLET --token TOKEN_ID --at DATE --balance X [--places N] [--time-zone Z] [--json] [--data-dir D]
  Balances from the ledger, exact: per wallet and token at a moment (default: the end of today), or a
  period's opening, in, out, fees and closing. Completed deposits count in, completed withdrawals and
  fees out, a failed withdrawal that went on chain its fee; a record counts at completed_at, else
  confirmed_at, else created_at (docs/ledger.md, "Balances"). DATE is a day (YYYY-MM-DD, the whole day:
  --at and --to its end, --from its start) or an ISO 8601 moment; days are read in --time-zone (an
  IANA name, default UTC). WALLET is a wallet's ID or its name.
  statement: the records between with the balance after each. check: compares the custodian's
  closing balance X with the ledger's at DATE, at X's decimal places (or --places N): the ledger's
  balance rounded half to even to them. A difference opens an exception of kind balance (the same
  check again updates it); a figure that agrees resolves it.`;

export const keysUsage = `npm run nps -- keys create --label L [--wallets W1,W2] [--data-dir D]
  Make an Ed25519 API key; prints the secret once (it is never stored) and the key.
npm run nps -- keys add --public-key HEX --label L [--wallets W1,W2] [--data-dir D]
  Register a key made elsewhere (its 32-byte public key in hex).
npm run nps -- keys list [--json] [--data-dir D]
npm run nps -- keys update KEY [--label L] [--wallets W1,W2|all] [--data-dir D]
  Relabel a key or change the wallets it may act on.
npm run nps -- keys revoke KEY [--data-dir D]
  --wallets limits the key to these wallets, each by its name or ID (an unknown one is refused);
  without it (or with "all") the key may act on every wallet.`;

export const retentionUsage = `npm run nps -- retention [show] [--json] [--data-dir D]
npm run nps -- retention set [--days N] [--runs M] [--json] [--data-dir D]
npm run nps -- retention apply [--json] [--data-dir D]
  Verification runs are kept for the last N days and at least the last M runs, whichever keeps more
  (default ${DEFAULT_RETENTION.days} days, ${DEFAULT_RETENTION.runs} runs); older runs keep only the items that opened or touched a ticket.
  show: the policy, the store's size, its runs and items, and what the policy removes now.
  set: change the policy (days ${RETENTION_LIMITS.days.min}-${RETENTION_LIMITS.days.max}, runs ${RETENTION_LIMITS.runs.min}-${RETENTION_LIMITS.runs.max}).
  apply: remove now what the policy no longer keeps (the service also does, after it starts and hourly
  after new runs). The freed space is reused by new runs; the file shrinks only in incremental
  auto-vacuum mode.`;

export const userUsage = `npm run nps -- user [NAME] [--json] [--data-dir D]
  The named local user: who resolves, dismisses and reopens tickets, as every ticket event of the
  desktop app and the CLI records it (API keys are named by their key). Without NAME, show it;
  with NAME, set it (at most 80 characters). Also in the desktop app: Settings, Your name.`;

export const serveUsage = `npm run nps -- serve [--ui] [--port N] [--host H] [--data-dir D] [--nonce-window S]
                          [--rate-limit N] [--read-limit N] [--auth-fail-limit N] [--max-verifies N]
                          [--max-imports N] [--request-timeout S] [--max-connections N]
                          [--session-idle M] [--log-level info|debug|warn|error|fatal|silent]
  Start the service headless on http://127.0.0.1:8730 (port 0 picks a free one).
  --nonce-window: seconds a signed request's nonce may be off the clock (default 60).
  Limits, in requests a minute (0: no limit); all loopback addresses count as one client:
  --rate-limit: signed requests per API key (default ${DEFAULT_RATE_LIMITS.signed}).
  --read-limit: unsigned requests per client (default ${DEFAULT_RATE_LIMITS.reads}).
  --auth-fail-limit: requests failing authentication per client, counted apart so they never
  use up what good requests need (default ${DEFAULT_RATE_LIMITS.failedAuth}).
  --max-verifies: verification requests taken at once, once authenticated; beyond, 4003 busy at
  once with Retry-After (default 2 per core).
  --max-imports: import jobs (imports, previews, undos) the command line may have running or
  waiting at once; beyond, 4003 busy at once with Retry-After (default 1 per core; the window's
  own imports are not counted).
  --request-timeout: seconds a request's headers and body may take to arrive; past it, 408 and the
  connection is closed (default 10).
  --max-connections: connections open at once; past it, the one idle or unfinished the longest is
  closed to make room, never one whose request is being answered (default 1024).
  --session-idle: minutes a browser window's session lasts without a call from it (default 30).
  --log-level: what the log (logs/nps.N.log in the data folder) keeps; default info, a line per request.
  --ui also serves the desktop screens at / (browser mode), building them first when needed.`;

export const openUsage = `npm run nps -- open [--data-dir D]
  Print a fresh link to the browser window of the service running on the data folder (npm start
  in browser mode, or serve --ui). A link opens one window, once; a window's session ends when it
  closes or after --session-idle minutes without a call.`;

export const startUsage = `npm start [-- --browser] [--port N] [--data-dir D]
  Start the desktop app (Electron). Where no Electron binary can be had, say so in one line and
  serve the same screens in browser mode instead, printing the URL. --browser skips Electron.`;

const TICKET_FILTERS = `[--kind K] [--status S] [--wallet WALLET] [--chain C] [--token T] [--run RUN_ID] [--search WORDS]`;

export const ticketsUsage = `npm run nps -- tickets list ${TICKET_FILTERS} [--sort F] [--order asc|desc] [--limit N] [--json] [--data-dir D]
npm run nps -- tickets show TICKET_ID [--json] [--data-dir D]
npm run nps -- tickets resolve|dismiss TICKET_ID... --reason TEXT [--json] [--data-dir D]
npm run nps -- tickets resolve|dismiss ${TICKET_FILTERS} --reason TEXT [--yes] [--json] [--data-dir D]
npm run nps -- tickets reopen TICKET_ID... [--reason TEXT] [--json] [--data-dir D]
npm run nps -- tickets reopen ${TICKET_FILTERS} [--reason TEXT] [--yes] [--json] [--data-dir D]
  The exceptions queue, as the Tickets screen works it. K is ${EXCEPTION_KINDS.join(', ')};
  S is Pending, Resolved or Dismissed; WALLET is a wallet's name or ID; RUN_ID is a reconciliation
  run's (nps reconcile prints it); --search finds words in the description, the ids, the claim and
  the record's hash. list: newest change first (--sort ${TICKET_SORTS.join('|')}), at most N (default 100).
  resolve and dismiss need a reason, which every ticket's history keeps with your name (nps user NAME).
  Given ticket IDs, every one changes or none does. Given filters instead, every Pending ticket they
  select is resolved or dismissed (every Resolved or Dismissed one is reopened): the CLI says how many
  and asks y/N on a terminal; without a terminal it changes them only with --yes.`;
