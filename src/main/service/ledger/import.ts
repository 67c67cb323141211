import { randomUUID } from 'node:crypto';
import { IANAZone } from 'luxon';
import { performance } from 'node:perf_hooks';
import { ErrorCodes } from '../../../shared/errors';
import {
  LEDGER_FIELDS,
  REQUIRED_FIELDS,
  type IgnoredRows,
  type ImportChoices,
  type ImportReport,
  type LedgerDetectResult,
  type LedgerSource,
  type Mapping,
  type MappingInput,
  type NeededChoice,
  type ParsedRow,
  type Rejection,
} from '../../../shared/ledger';
import type { CallMeta, ServiceContext } from '../context';
import { ServiceError } from '../errors';
import { detectDateOrder, offsetOf } from './dates';
import { detectDecimalSeparator } from './numbers';
import { detectPreset, findHeader, guessMapping, presetByName, PRESETS, type PresetDef } from './presets';
import { loadCatalogue } from './repository';
import { addressOwner, getWallet, walletAddressOn } from './wallets-repository';
import {
  compileRowReader,
  FileProblem,
  IgnoredRow,
  mappingProblem,
  RowProblem,
  unmappedColumns,
  type CatalogueView,
  type RowReader,
  type UnknownTokens,
} from './rows';
import { contradicts, detach, ORDER_WORDS, SEPARATOR_WORDS } from './values';
import { FileError, NOT_A_CELL, NOT_AN_OBJECT, openSource, sniff, streamRows, type OpenedSource, type Sniffed } from '../tables/source';
import type { RowWriter } from '../engine/index';
import { readFingerprint, timing, type WriterStats } from './import-repository';
import { importAgain } from './import-again';
import { byDoor } from '../said';

export interface ImportOptions {
  source: LedgerSource;
  preset?: string;
  mapping?: Mapping;
  walletId?: string;
  walletAddress?: string;
  /** What the user states that the file does not say (--chain, --token, --decimal-separator, --date-order). */
  choices?: ImportChoices;
  dryRun: boolean;
  onProgress?: CallMeta['onProgress'];
  /** From this file size on the rows are written on a worker thread (tests lower it). */
  workerMinBytes?: number;
  /** From this many rows on, the ledger's indexes are rebuilt after the load (tests lower it). */
  rebuildMinRows?: number;
}

const fileFailure = (name: string, reason: string) =>
  new ServiceError(ErrorCodes.INVALID_PARAM, `${name}: ${reason}; nothing was imported`);

function open(source: LedgerSource): { opened: OpenedSource; sniffed: Sniffed } {
  const name = 'path' in source ? source.path : source.name;
  try {
    const opened = openSource(source);
    return { opened, sniffed: sniff(opened) };
  } catch (err) {
    if (err instanceof FileError) throw fileFailure(name, err.message);
    throw err;
  }
}

/** A stated zone of times without one: UTC, an offset (+08:00) or an IANA name; another is refused naming time_zone. */
function setZone(mapping: Mapping, zone: string): void {
  const offset = offsetOf(zone);
  if (offset !== undefined) {
    mapping.date.utc_offset = offset;
    delete mapping.date.time_zone;
  } else if (IANAZone.isValidZone(zone.trim())) mapping.date.time_zone = zone.trim();
  else
    throw new ServiceError(
      ErrorCodes.INVALID_PARAM,
      `time_zone: unknown time zone ${JSON.stringify(zone)} (UTC, an offset like +08:00, or an IANA name such as Asia/Shanghai)`,
    );
}

/** Why a header fits no preset, naming what the native format misses. */
function noPresetReason(headers: string[]): string {
  const missing = REQUIRED_FIELDS.filter((f) => f !== 'wallet_id' && findHeader(headers, f) === undefined);
  const shown = headers.slice(0, 12).map((h) => JSON.stringify(h.trim()));
  return (
    `the header fits no known format: the native format needs the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}` +
    ` (found ${shown.join(', ')}${headers.length > 12 ? ', ...' : ''}); for another export give a preset (${PRESETS.map((p) => p.name).join(', ')}) or a column mapping`
  );
}

function resolveMapping(
  opts: { preset?: string; mapping?: Mapping },
  headers: string[],
  headRows: string[][],
  fileName: string,
): { preset: string; def: PresetDef | undefined; mapping: Mapping } {
  if (opts.mapping) return { preset: 'custom', def: undefined, mapping: structuredClone(opts.mapping) };
  if (opts.preset !== undefined) {
    const preset = presetByName(opts.preset);
    if (!preset)
      throw new ServiceError(
        ErrorCodes.INVALID_PARAM,
        `preset: unknown preset ${JSON.stringify(opts.preset)}; known: ${PRESETS.map((p) => p.name).join(', ')}`,
      );
    return { preset: preset.name, def: preset, mapping: preset.mappingFor(headers) };
  }
  const detected = detectPreset(headers);
  if (!detected) {
    // A title or notes above the table: a known export's header a few lines down.
    const below = headRows.slice(0, 10).findIndex((row) => detectPreset(row) !== undefined);
    if (below >= 0)
      throw fileFailure(
        fileName,
        `the first line is not the header: the columns of ${detectPreset(headRows[below]!)!.label} start ${below + 1} line${below ? 's' : ''} below it; delete the lines above the header and import again`,
      );
    throw fileFailure(fileName, noPresetReason(headers));
  }
  return { preset: detected.name, def: detected, mapping: detected.mappingFor(headers) };
}

/**
 * Addresses no export is made for: tokens are minted from and burned to them, so a file of mints or
 * burns has one on every row (EVM's zero and 0x…dead, TRON's zero in Base58 and hex).
 */
const NOBODY = new Set([
  '0x0000000000000000000000000000000000000000',
  '0x000000000000000000000000000000000000dead',
  't9yd14nj9j7xab4dbgeix9h8unkkhxuwwb',
  '410000000000000000000000000000000000000000',
]);
const isNobody = (address: string) => NOBODY.has(address.trim().toLowerCase());

/**
 * Candidates for the export's own address, when the mapping needs one to tell deposits from
 * withdrawals and none was given: the addresses that are the sender or the recipient on every one
 * of the first rows (one is the wallet's; two or more are for the user to choose from).
 */
function walletAddressCandidates(mapping: Mapping, headers: string[], rows: string[][]): string[] {
  // In/out columns tell most rows' direction, but not a failed transfer's (no value either way): the address does.
  if (statesDirection(mapping)) return [];
  const fromCol = mapping.columns.from ? findHeader(headers, mapping.columns.from) : undefined;
  const toCol = mapping.columns.to ? findHeader(headers, mapping.columns.to) : undefined;
  if (fromCol === undefined || toCol === undefined || rows.length === 0) return [];
  const fi = headers.indexOf(fromCol);
  const ti = headers.indexOf(toCol);
  // A contract creation's To is empty: it went to the contract it made (rows.ts reads it the same way).
  const createdCol = mapping.columns.created_contract ? findHeader(headers, mapping.columns.created_contract) : undefined;
  const ci = createdCol === undefined ? -1 : headers.indexOf(createdCol);
  let candidates: Map<string, string> | undefined;
  for (const row of rows) {
    const here = new Map<string, string>();
    const to = row[ti]?.trim() || (ci >= 0 ? (row[ci]?.trim() ?? '') : '');
    // A row naming no address at all is no transfer (a spreadsheet's totals row): it tells nothing of the wallet.
    if (!to && !row[fi]?.trim()) continue;
    for (const a of [row[fi]?.trim() ?? '', to]) if (a && !isNobody(a)) here.set(a.toLowerCase(), a);
    candidates = candidates === undefined ? here : new Map([...candidates].filter(([k]) => here.has(k)));
    if (candidates.size === 0) return [];
  }
  return [...(candidates?.values() ?? [])];
}

/** Whether some of the first rows move nothing either way (Value_IN and Value_OUT both 0 or empty): only the wallet's address gives their direction. */
function hasRowsOfNoValue(mapping: Mapping, headers: string[], rows: string[][]): boolean {
  const at = (input: 'amount_in' | 'amount_out') => {
    const h = mapping.columns[input] ? findHeader(headers, mapping.columns[input]) : undefined;
    return h === undefined ? -1 : headers.indexOf(h);
  };
  const ii = at('amount_in');
  const oi = at('amount_out');
  if (ii < 0 && oi < 0) return false;
  const none = (cell: string | undefined) => /^[\s0.,]*$/.test(cell ?? '');
  return rows.some((row) => none(ii < 0 ? '' : row[ii]) && none(oi < 0 ? '' : row[oi]));
}

/** Whether the mapping itself says each row's direction: a type (column or constant), or the wallet's address. */
const statesDirection = (m: Mapping): boolean => Boolean(m.constants.wallet_address || m.columns.type || m.constants.type);

/** Whether only the wallet's own address can tell a row's direction (no type, no in/out columns, no sign). */
const needsWalletAddress = (m: Mapping): boolean =>
  !statesDirection(m) &&
  !m.columns.amount_in &&
  !m.columns.amount_out &&
  !m.signed_amounts &&
  (m.columns.from !== undefined || m.columns.to !== undefined);

const AMOUNT_INPUTS = ['amount', 'amount_in', 'amount_out', 'fee', 'fee_ratio', 'fee_fixed', 'er', 'amount_actual'] as const;
const TIME_INPUTS = ['created_at', 'confirmed_at', 'completed_at'] as const;

/** The cells of the mapped columns among `inputs`, over the rows. */
function* cellsOf(headers: string[], mapping: Mapping, inputs: readonly MappingInput[], rows: string[][]): Generator<string> {
  const indexes = [
    ...new Set(
      inputs.map((f) => (mapping.columns[f] ? headers.indexOf(findHeader(headers, mapping.columns[f]) ?? '') : -1)).filter((i) => i >= 0),
    ),
  ];
  for (const row of rows) for (const i of indexes) if (row[i]) yield row[i]!;
}

/** EVM chain ids (EIP-155) of the catalogue's chains, as multichain explorers write them in a ChainId column. */
const EVM_CHAIN_IDS: Record<string, string> = {
  '1': 'ETH',
  '56': 'BSC_BNB',
  '137': 'MATIC',
  '42161': 'ARBITRUM_ETH',
  '10': 'OPT_ETH',
  '8453': 'BASE_ETH',
  '43114': 'AVAXC',
  '11155111': 'SETH',
  '5000': 'MANTLE',
};

/**
 * The chain a ChainId column names, when every one of the first rows names the same chain of the
 * catalogue and its coin is the one the values are in; null otherwise (then the chain is asked for).
 */
function chainIdColumn(
  headers: string[],
  rows: string[][],
  catalogue: CatalogueView,
  family: { family: string; unit: string | null },
): string | null {
  const column = findHeader(headers, 'ChainId') ?? findHeader(headers, 'Chain Id');
  if (column === undefined || rows.length === 0) return null;
  const at = headers.indexOf(column);
  const ids = new Set(rows.map((r) => (r[at] ?? '').trim()));
  if (ids.size !== 1) return null;
  const chainId = EVM_CHAIN_IDS[[...ids][0]!];
  const chain = chainId === undefined ? undefined : catalogue.chains.get(chainId);
  if (!chain || chain.family !== family.family) return null;
  if (family.unit !== null && coin(chain.native_symbol) !== coin(family.unit)) return null;
  return chainId!;
}

/** What a file says of a chain the catalogue lacks: its family, its coin, and its id where a ChainId column names a known one. */
function chainToAdd(
  headers: string[],
  rows: string[][],
  family: { family: string; unit: string | null },
  catalogue: CatalogueView,
): NonNullable<NeededChoice['add_chain']> {
  const column = findHeader(headers, 'ChainId') ?? findHeader(headers, 'Chain Id');
  const named = column === undefined ? undefined : EVM_CHAIN_IDS[(rows[0]?.[headers.indexOf(column)] ?? '').trim()];
  const symbol = (family.unit ?? '').toUpperCase();
  const fromSymbol = symbol.replace(/[^A-Z0-9_]/g, '_');
  const suggested = named ?? (/^[A-Z][A-Z0-9_]{1,31}$/.test(fromSymbol) ? fromSymbol : '');
  return {
    // A chain the catalogue has is among the options, not one to add: its id is no suggestion.
    chain_id: catalogue.chains.has(suggested) ? '' : suggested,
    chain_identifier: family.family,
    native_symbol: family.unit ?? '',
    // An EVM chain's coin counts in 18 decimal places (wei); of other families the file shows no more than a lower bound.
    native_decimal: family.family === 'ETH' ? 18 : null,
  };
}

/** Same coin, spelled as explorers spell it before and after a rename. */
const SAME_COIN: Record<string, string> = { MATIC: 'POL', POL: 'POL' };
const coin = (symbol: string) => SAME_COIN[symbol.toUpperCase()] ?? symbol.toUpperCase();

interface Plan {
  preset: string;
  mapping: Mapping;
  walletAddress: string | undefined;
  /** The export's address on its chain, no wallet's yet: the wallet's once the import is kept. */
  keepAddress?: { chain_id: string; address: string };
  readAs: ImportReport['read_as'];
  /** Choices the file leaves open. */
  needs: NeededChoice[];
  /** Why the file cannot be read as mapped (no choice fixes it), or null. */
  problem: string | null;
  catalogue: CatalogueView;
}

/**
 * Decide how the file is read: the preset or mapping, then what the file does not say: the chain
 * (from the coin its values are in, or the user), the token, the decimal separator and the date
 * order (from its first rows, or the user), the wallet's address. What stays open is a need; a
 * need is never filled by a guess.
 */
function planImport(ctx: ServiceContext, sniffed: Sniffed, opts: ImportOptions, fileName: string): Plan {
  const { preset, def, mapping } = resolveMapping(opts, sniffed.headers, sniffed.headRows, fileName);
  const choices = opts.choices ?? {};
  const catalogue = loadCatalogue(ctx.db);
  const headers = sniffed.headers;
  const rows = sniffed.headRows;
  const needs: NeededChoice[] = [];
  const problems: string[] = [];

  // The chain.
  const family = def?.chainOf(headers, rows) ?? null;
  let chainId: string | null = mapping.constants.chain_id ?? null;
  if (choices.chain_id !== undefined) {
    const chain = catalogue.chains.get(choices.chain_id);
    if (!chain) {
      throw new ServiceError(
        ErrorCodes.INVALID_PARAM,
        `chain_id: unknown chain ${JSON.stringify(choices.chain_id)}; known: ${[...catalogue.chains.keys()].join(', ')} (${byDoor('add one with `nps chains add`', 'add one with Add chain in the import dialog')})`,
      );
    }
    if (family && chain.family !== family.family) {
      throw new ServiceError(
        ErrorCodes.INVALID_PARAM,
        `chain_id: ${choices.chain_id} is not a ${family.family} chain, and this is a ${preset} export`,
      );
    }
    if (family?.unit && coin(chain.native_symbol) !== coin(family.unit)) {
      throw new ServiceError(
        ErrorCodes.INVALID_PARAM,
        `chain_id: this file's values are in ${family.unit}, but ${choices.chain_id}'s coin is ${chain.native_symbol}`,
      );
    }
    chainId = choices.chain_id;
  } else if (family && chainId === null) {
    // An export that names its chain (a ChainId column, as multichain explorers write) says it; else the coin may.
    chainId = chainIdColumn(headers, rows, catalogue, family);
  }
  /** A chain the file could be from: of its family, with its coin where the file names one. */
  const fitsFile = (c: { family: string; native_symbol: string }) =>
    family !== null && c.family === family.family && (family.unit === null || coin(c.native_symbol) === coin(family.unit));
  if (family && chainId === null && choices.chain_id === undefined && choices.token_id !== undefined) {
    // A token given names its chain (a token is of one chain): said by the user, not guessed.
    const token = catalogue.tokens.get(choices.token_id);
    const chain = token && catalogue.chains.get(token.chain_id);
    if (chain && fitsFile(chain)) chainId = token.chain_id;
  }
  if (family && chainId === null && choices.chain_id === undefined) {
    const candidates = [...catalogue.chains.entries()].filter(([, c]) => fitsFile(c) && !c.is_testnet).map(([id]) => id);
    if (candidates.length === 1) chainId = candidates[0]!;
    else
      needs.push({
        field: 'chain_id',
        flag: '--chain',
        options: candidates,
        add_chain: chainToAdd(headers, rows, family, catalogue),
        reason:
          candidates.length === 0
            ? `no chain in the catalogue has the coin ${family.unit}: ${byDoor('add the chain (`nps chains add`) and give it', 'add the chain (Add chain), then choose it')}`
            : `${
                family.unit === null
                  ? `the file does not say its chain (${/^[aeiou]/i.test(preset) ? 'an' : 'a'} ${preset} export has the same columns on every ${family.family === 'ETH' ? 'EVM' : family.family} chain): choose ${candidates.join(', ')}`
                  : `the file's values are in ${family.unit}, the coin of ${candidates.join(', ')}: say which chain it was exported from`
              }; a chain not listed must be added first (${byDoor('`nps chains add`', 'Add chain')})`,
      });
  }
  if (!family && chainId === null && mapping.columns.chain_id === undefined) {
    const ids = [...catalogue.chains.keys()];
    needs.push({
      field: 'chain_id',
      flag: '--chain',
      options: ids,
      reason: `the file has no chain_id column: every row is read on the chain given (${ids.join(', ')})`,
    });
  }
  if (chainId !== null) {
    mapping.constants.chain_id = chainId;
    // An export of the chain's coin (transactions, internal transactions): the native token.
    if (def?.ofNativeCoin) mapping.constants.token_id = catalogue.chains.get(chainId)?.native_token_id ?? chainId;
    // Amounts written with their coin ("0.5 ETH"): the chain's coin, and only it.
    if (def?.ofNativeCoin && family?.unit) mapping.number.unit = family.unit;
  }

  // The token.
  if (choices.token_id !== undefined) {
    const token = catalogue.tokens.get(choices.token_id);
    if (!token)
      throw new ServiceError(
        ErrorCodes.INVALID_PARAM,
        `token_id: unknown token ${JSON.stringify(choices.token_id)} (${byDoor('add it with `nps tokens add`', "add it to the catalogue from the import's list of unknown tokens")})`,
      );
    if (chainId !== null && token.chain_id !== chainId)
      throw new ServiceError(ErrorCodes.INVALID_PARAM, `token_id: ${choices.token_id} is on ${token.chain_id}, not ${chainId}`);
    mapping.constants.token_id = choices.token_id;
  }
  // An export of the chain's coin has its token once the chain is known; any other file names its token or is given one.
  const namesToken =
    mapping.constants.token_id !== undefined ||
    Boolean(mapping.columns.token_id || mapping.columns.token_contract || mapping.columns.token_symbol);
  if (!namesToken && !(def?.ofNativeCoin && chainId === null)) needs.push(tokenNeed(catalogue, chainId, family?.family));

  // The decimal separator.
  let separator: '.' | ',' | null = mapping.number.decimal_separator === 'auto' ? null : mapping.number.decimal_separator;
  const foundSeparator = detectDecimalSeparator(cellsOf(headers, mapping, AMOUNT_INPUTS, rows));
  if (choices.decimal_separator !== undefined) separator = choices.decimal_separator;
  if (separator !== null) {
    // A separator stated against what the file's own amounts show would read its other amounts wrong ("1.035" as 1.035 among "0,5").
    const contradiction = contradicts(separator, foundSeparator.separator, foundSeparator, SEPARATOR_WORDS);
    if (contradiction) problems.push(`decimal_separator: ${contradiction}`);
  } else {
    const found = foundSeparator;
    // Asked, as an open separator is: the dialog asks it among its questions, the CLI names the flag.
    if (found.conflict)
      needs.push({
        field: 'decimal_separator',
        flag: '--decimal-separator',
        options: ['.', ','],
        reason: `its amounts disagree on the decimal separator (${found.examples.map((e) => JSON.stringify(e)).join(' has a point, ')} a comma): say which the file uses, and the amounts that do not fit it are rejected`,
      });
    else if (found.separator !== null) separator = found.separator;
    else if (found.examples.length)
      needs.push({
        field: 'decimal_separator',
        flag: '--decimal-separator',
        options: ['.', ','],
        reason: `amounts like ${found.examples.map((e) => JSON.stringify(e)).join(', ')} can be read with a decimal point or a decimal comma, and no amount in the first rows tells which`,
      });
  }
  if (separator !== null) mapping.number.decimal_separator = separator;

  // The date order.
  let order: 'day_first' | 'month_first' | null = mapping.date.order === 'auto' ? null : mapping.date.order;
  if (choices.date_order !== undefined) order = choices.date_order;
  const foundOrder = mapping.date.format === 'auto' ? detectDateOrder(cellsOf(headers, mapping, TIME_INPUTS, rows)) : undefined;
  if (order !== null && foundOrder) {
    // Likewise: "05/03/2022" read month first in a file whose "25/03/2022" is day first is the wrong day.
    const contradiction = contradicts(order, foundOrder.order, foundOrder, ORDER_WORDS);
    if (contradiction) problems.push(`date_order: ${contradiction}`);
  } else if (order === null && foundOrder) {
    const found = foundOrder;
    if (found.conflict)
      problems.push(`its dates disagree on the order of day and month (${found.examples.map((e) => JSON.stringify(e)).join(', ')})`);
    else if (found.order !== null) order = found.order;
    else if (found.examples.length)
      needs.push({
        field: 'date_order',
        flag: '--date-order',
        options: ['day_first', 'month_first'],
        reason: `dates like ${found.examples.map((e) => JSON.stringify(e)).join(', ')} can be day first or month first, and no date in the first rows tells which`,
      });
  }
  if (order !== null) mapping.date.order = order;

  // The time zone of times written without one: stated, or the mapping's (UTC unless it says otherwise); asked where the export leaves it open.
  if (choices.time_zone !== undefined) setZone(mapping, choices.time_zone);
  else {
    const unstated = def?.zoneUnstated?.(headers) ?? null;
    if (unstated !== null)
      needs.push({ field: 'time_zone', flag: '--time-zone', options: ['UTC', '+08:00'], reason: `${unstated}; say which` });
  }

  // The wallet's address: given, else the wallet's own on the file's chain, else the one on every first row.
  const given = opts.walletAddress ?? mapping.constants.wallet_address;
  if (given !== undefined && isNobody(given))
    throw new ServiceError(
      ErrorCodes.INVALID_PARAM,
      `wallet_address: ${given.trim()} is the address tokens are minted from and burned to, not a wallet's; give the address the export was made for`,
    );
  const ownAddress =
    opts.walletId && chainId !== null && !statesDirection(mapping) ? walletAddressOn(ctx.db, opts.walletId, chainId) : undefined;
  const candidates = (opts.walletAddress ?? ownAddress) ? [] : walletAddressCandidates(mapping, headers, rows);
  const walletAddress = opts.walletAddress ?? ownAddress ?? (candidates.length === 1 ? candidates[0] : undefined);
  // The file is the export of one address on one chain into one wallet: an address belongs to one wallet per chain.
  let keepAddress: Plan['keepAddress'];
  if (walletAddress !== undefined && chainId !== null && opts.walletId !== undefined && mapping.columns.wallet_id === undefined) {
    const family = catalogue.chains.get(chainId)?.family;
    const address = family === 'ETH' ? walletAddress.trim().toLowerCase() : walletAddress.trim();
    const owner = addressOwner(ctx.db, chainId, address);
    if (owner !== undefined && owner !== opts.walletId.toLowerCase()) {
      const name = getWallet(ctx.db, owner)?.name;
      problems.push(
        `this is the export of ${walletAddress.trim()} on ${chainId}, the address of wallet ${name ? JSON.stringify(name) : owner}: its rows are that wallet's, and imported into another they would be booked twice; import it into ${name ? JSON.stringify(name) : 'that wallet'} (${byDoor(`--wallet-id ${owner}`, 'choose it as the Wallet')}), or remove the address from that wallet first`,
      );
    } else if (owner === undefined && (family === 'ETH' || family === 'TRON')) keepAddress = { chain_id: chainId, address };
  }
  const noValueRows = !statesDirection(mapping) && hasRowsOfNoValue(mapping, headers, rows);
  if (walletAddress === undefined && (needsWalletAddress(mapping) || noValueRows)) {
    const why = needsWalletAddress(mapping)
      ? 'the file has no type column'
      : `some of its rows move nothing either way (${mapping.columns.amount_in ?? 'amount_in'} and ${mapping.columns.amount_out ?? 'amount_out'} both 0)`;
    const which =
      candidates.length > 1
        ? `${candidates.length} addresses are on every one of its first rows (${candidates.join(', ')})`
        : 'no address is on every one of its first rows';
    needs.push({
      field: 'wallet_address',
      flag: '--wallet-address',
      options: candidates.length > 1 ? candidates : [],
      reason: `${why}, and ${which}: give the wallet's address to tell deposits from withdrawals`,
    });
  }

  // The wallet every row goes to, for files without a wallet_id column.
  if (opts.walletId === undefined && mapping.columns.wallet_id === undefined && mapping.constants.wallet_id === undefined)
    needs.push({
      field: 'wallet_id',
      flag: '--wallet',
      options: [],
      reason: 'the file has no wallet_id column: say which wallet every row goes to',
    });

  // What no choice gives: a mapped column the header lacks, a field nothing gives.
  const unreadable = mappingProblem(
    { headers, mapping, catalogue, walletId: opts.walletId, walletAddress },
    new Set(needs.map((n) => n.field)),
  );
  if (unreadable !== null) problems.push(unreadable);

  return {
    preset,
    mapping,
    walletAddress,
    keepAddress,
    catalogue,
    needs,
    problem: problems.length ? problems.join('; ') : null,
    readAs: {
      chain_id: chainId,
      decimal_separator: separator,
      date_order: order,
      wallet_address: walletAddress ?? mapping.constants.wallet_address ?? null,
      time_zone: mapping.date.time_zone ?? (mapping.date.utc_offset === '+00:00' ? 'UTC' : `UTC${mapping.date.utc_offset}`),
    },
  };
}

/** The tokens offered for a file that names none: the chain's, where the chain is known and they are few. */
const FEW_TOKENS = 20;

/**
 * The token of a file that names none: one of its chain's, or, while the chain is open too, one of
 * the chains of the export's family (the token given then names the chain).
 */
function tokenNeed(catalogue: CatalogueView, chainId: string | null, family: string | undefined): NeededChoice {
  const native = chainId === null ? undefined : catalogue.chains.get(chainId)?.native_token_id;
  const fits = (tokenChain: string) => {
    if (chainId !== null) return tokenChain === chainId;
    const chain = catalogue.chains.get(tokenChain);
    return family !== undefined && chain !== undefined && chain.family === family && !chain.is_testnet;
  };
  const onChain = [...catalogue.tokens]
    .filter(([, t]) => fits(t.chain_id))
    .map(([id]) => id)
    // The chain's coin first, then by token_id.
    .sort((a, b) => Number(b === native) - Number(a === native) || a.localeCompare(b));
  return {
    field: 'token_id',
    flag: '--token',
    options: onChain.length <= FEW_TOKENS ? onChain : [],
    reason: `the file names no token (no token, contract or symbol column): every row is read as the token given${chainId === null ? (family === undefined ? '' : ', on its chain') : ` (a token on ${chainId})`}`,
  };
}

/** What a flag takes, where a need offers no values to choose from. */
const FLAG_VALUE: Record<string, string> = { '--wallet': 'NAME or --wallet-id W', '--token': 'T', '--chain': 'C', '--wallet-address': 'A' };

/** The import dialog's question that answers a need, by the need's field. */
const QUESTION: Record<string, string> = {
  chain_id: 'Chain of the file',
  token_id: 'Token of every row',
  decimal_separator: 'Decimal separator',
  date_order: 'Date order',
  time_zone: 'Time zone',
  wallet_address: 'Wallet address',
  wallet_id: 'Wallet',
};

/** A plan that cannot run: the reasons, each with the flag (the window: the question) that fixes it. */
function refusePlan(plan: Plan, fileName: string): void {
  const reasons = plan.needs.map((n) => {
    const value = n.options.length ? n.options.join('|') : FLAG_VALUE[n.flag];
    const question = QUESTION[n.field];
    return `${n.reason} (${byDoor(`give ${n.flag}${value ? ` ${value}` : ''}`, question ? `answer ${question} in the import dialog` : `give ${n.field}`)})`;
  });
  if (plan.problem !== null) reasons.unshift(plan.problem);
  if (reasons.length) throw fileFailure(fileName, reasons.join('; '));
}

function compile(plan: Plan, sniffed: Sniffed, walletId: string | undefined, fileName: string, unknownTokens?: UnknownTokens): RowReader {
  try {
    return compileRowReader({
      headers: sniffed.headers,
      mapping: plan.mapping,
      catalogue: plan.catalogue,
      walletId,
      walletAddress: plan.walletAddress,
      unknownTokens,
    });
  } catch (err) {
    if (err instanceof FileProblem) throw fileFailure(fileName, err.message);
    if (err instanceof Error && /date\.time_zone/.test(err.message)) throw fileFailure(fileName, err.message);
    throw err;
  }
}

/** Rows of ignored contracts, by `${chain_id}\n${lower-case contract}`. */
type Ignored = Map<string, IgnoredRows>;

function noteIgnored(ignored: Ignored, row: IgnoredRow): void {
  const key = `${row.chain_id}\n${row.contract_address.toLowerCase()}`;
  const entry = ignored.get(key);
  if (entry) entry.rows++;
  else ignored.set(key, { chain_id: row.chain_id, contract_address: row.contract_address, symbol: row.symbol, rows: 1 });
}

const ignoredList = (ignored: Ignored): IgnoredRows[] => [...ignored.values()].sort((a, b) => b.rows - a.rows);

const SHOWN_ROWS = 20;
/** The time the dialog's first rows show: the first of these a row has. */
const TIME_SHOWN = ['created_at', 'confirmed_at', 'completed_at'] as const;

/** Look at a file: its format, preset and mapping, what it still needs, and its first rows as the import would read them. */
export function detectLedger(ctx: ServiceContext, request: ImportOptions): LedgerDetectResult {
  const { opened, sniffed } = open(request.source);
  const fileName = opened.name;
  let preset: string | null;
  let plan: Plan | undefined;
  let problem: string | null;
  let mapping: Mapping;
  try {
    plan = planImport(ctx, sniffed, request, fileName);
    preset = plan.preset === 'custom' ? null : plan.preset;
    mapping = plan.mapping;
    problem = plan.problem;
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    // No preset fits: a first guess at a mapping from the column names.
    const detected = request.mapping ? undefined : detectPreset(sniffed.headers);
    preset = detected?.name ?? null;
    mapping = request.mapping ?? detected?.mappingFor(sniffed.headers) ?? guessMapping(sniffed.headers);
    problem = err.message.replace(/; nothing was imported$/, '');
  }
  const parsed: ParsedRow[] = [];
  const unknown: UnknownTokens = new Map();
  const ignored: Ignored = new Map();
  if (plan && problem === null && plan.needs.length === 0) {
    try {
      const read = compile(plan, sniffed, request.walletId, fileName, unknown);
      const amountColumns = AMOUNT_INPUTS.slice(0, 3)
        .map((f) => mapping.columns[f])
        .filter((c): c is string => c !== undefined);
      const cellOf = (cells: string[], column: string | undefined) =>
        column === undefined ? '' : (cells[sniffed.headers.indexOf(findHeader(sniffed.headers, column) ?? '')] ?? '');
      sniffed.sample.slice(0, SHOWN_ROWS).forEach((cells, k) => {
        const out = read(cells, k + 1);
        if (out instanceof IgnoredRow) noteIgnored(ignored, out);
        const raw = amountColumns
          .map((c) => cellOf(cells, c))
          .filter((v) => v.trim() !== '' && v.trim() !== '0')
          .join(' / ');
        if (out instanceof IgnoredRow)
          parsed.push({
            row_number: k + 1,
            values: null,
            raw_amount: raw,
            raw_time: '',
            problem: {
              column: mapping.columns.token_contract ?? 'token_contract',
              reason: `skipped: the contract is ignored on ${out.chain_id} (spam)`,
              value: out.contract_address,
            },
          });
        else if (out instanceof RowProblem)
          parsed.push({
            row_number: k + 1,
            values: null,
            raw_amount: raw,
            raw_time: '',
            problem: { column: out.column, reason: out.reason, value: out.value },
          });
        else {
          const values = Object.fromEntries(LEDGER_FIELDS.map((f, i) => [f, out[i]!]));
          // The time the dialog shows, and the cell it came from (a constant has none).
          const timeField = TIME_SHOWN.find((f) => values[f]);
          parsed.push({
            row_number: k + 1,
            values,
            raw_amount: raw,
            raw_time: timeField ? cellOf(cells, mapping.columns[timeField]).trim() : '',
            problem: null,
          });
        }
      });
    } catch (err) {
      if (err instanceof FileProblem) problem = err.message;
      else if (err instanceof ServiceError) problem = err.message.replace(/; nothing was imported$/, '');
      else throw err;
    }
  }
  return {
    file_name: opened.name,
    file_size: opened.size,
    format: sniffed.format,
    encoding: sniffed.encoding,
    headers: sniffed.headers,
    sample: sniffed.sample.map((row) => Object.fromEntries(sniffed.headers.map((h, i) => [h, row[i] ?? '']))),
    preset,
    mapping,
    unmapped: unmappedColumns(sniffed.headers, mapping),
    row_estimate: sniffed.rowEstimate,
    needs: plan?.needs ?? [],
    problem,
    read_as: plan?.readAs ?? { chain_id: null, decimal_separator: null, date_order: null, wallet_address: null, time_zone: 'UTC' },
    parsed,
    unknown_tokens: [...unknown.values()],
    ignored_tokens: ignoredList(ignored),
  };
}

interface Staged {
  rowsTotal: number;
  rejections: Rejection[];
  ignored: Ignored;
  sha256: string;
}

/**
 * Characters of valid rows handed to the writer at a time: the batch's text must stay below V8's
 * large-object size (128 KiB, reached at 64 Ki characters if one is outside Latin-1), or each
 * one lives until a full collection.
 */
const BATCH_CHARS = 60 * 1024;

/**
 * Valid rows as lines `values... \t row_number \n` (values contain no tab or line break), joined
 * into one text per batch: each line dies young, and the batch's text goes to the writer as soon
 * as it is made.
 */
class Batcher {
  private lines: string[] = [];
  private chars = 0;

  constructor(private readonly writer: RowWriter) {}

  add(rowNumber: number, values: readonly string[]): void {
    // The number appended to the line, not pushed onto the row: a row's array grown by one more
    // element is copied into a larger one (a third of a GB a million rows, a sampling heap profile).
    const line = `${values.join('\t')}\t${rowNumber}`;
    this.lines.push(line);
    this.chars += line.length + 1;
    if (this.chars >= BATCH_CHARS) this.flush();
  }

  flush(): void {
    if (this.lines.length === 0) return;
    this.lines.push('');
    this.writer.add(this.lines.join('\n'));
    this.lines = [];
    this.chars = 0;
  }
}

/** Read every row, check it, and hand the valid ones to the writer. */
async function stageRows(
  opened: OpenedSource,
  sniffed: Sniffed,
  read: RowReader,
  staging: Batcher,
  writer: RowWriter,
  onProgress: ImportOptions['onProgress'],
): Promise<Staged> {
  const width = sniffed.headers.length;
  const isJson = sniffed.format === 'json';
  const rejections: Rejection[] = [];
  const ignored: Ignored = new Map();
  let rowsTotal = 0;
  let file: { sha256: string; bytes: number };
  try {
    file = await streamRows(opened, sniffed, {
      rows: (batch, first) => {
        for (let k = 0; k < batch.length; k++) {
          const cells = batch[k]!;
          const rowNumber = first + k;
          // Blank lines, and the rows of empty cells spreadsheets leave at the end, are not rows.
          if (cells[0]!.trim() === '' && cells.every((c) => c.trim() === '')) continue;
          rowsTotal++;
          if (isJson) {
            if (cells[0] === NOT_AN_OBJECT) {
              rejections.push({ row_number: rowNumber, column: '(row)', reason: 'is not a JSON object', value: '' });
              continue;
            }
            const bad = cells.indexOf(NOT_A_CELL);
            if (bad >= 0) {
              rejections.push({
                row_number: rowNumber,
                column: sniffed.headers[bad]!,
                reason: 'is an object or array, not a single value',
                value: '',
              });
              continue;
            }
          } else if (cells.length !== width) {
            rejections.push({
              row_number: rowNumber,
              column: '(row)',
              reason:
                cells.length < width
                  ? `has ${cells.length} cells; the header has ${width} (cells missing at the end: save the file again with every column, or a line break inside an unquoted cell split the row)`
                  : `has ${cells.length} cells; the header has ${width} (a delimiter inside an unquoted cell, such as 0,75 in a comma-separated file?)`,
              value: detach(cells.slice(width).join(sniffed.delimiter).slice(0, 80)),
            });
            continue;
          }
          const out = read(cells, rowNumber);
          if (out instanceof IgnoredRow) {
            noteIgnored(ignored, out);
            continue;
          }
          if (out instanceof RowProblem) {
            rejections.push({
              row_number: rowNumber,
              column: out.column,
              reason: detach(out.reason),
              value: detach(out.value.slice(0, 200)),
            });
            continue;
          }
          staging.add(rowNumber, out);
        }
      },
      progress: (bytes) => onProgress?.({ done: rowsTotal, bytes, totalBytes: opened.size }),
      wait: () => {
        staging.flush();
        return writer.wait();
      },
    });
    staging.flush();
  } catch (err) {
    if (err instanceof FileError || err instanceof FileProblem) throw fileFailure(opened.name, err.message);
    throw err;
  }
  return { rowsTotal, rejections, ignored, sha256: file.sha256 };
}

/** The reason most rejections share (the column and the reason without the cell's own text), with its count. */
function mostCommonReason(rejections: readonly Rejection[]): string | undefined {
  const counts = new Map<string, number>();
  for (const r of rejections.slice(0, 10_000)) {
    const key = `${r.column}: ${r.value ? r.reason.split(JSON.stringify(r.value)).join('…') : r.reason}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let best: [string, number] | undefined;
  for (const e of counts) if (!best || e[1] > best[1]) best = e;
  return best && `${best[0]} (${best[1]} row${best[1] === 1 ? '' : 's'})`;
}

function summaryMessage(r: Omit<ImportReport, 'message'>, ignored: string[]): string {
  const parts: string[] = [];
  if (r.rows_total === 0) parts.push('The file has no data rows; nothing was imported.');
  else if (r.added + r.updated + r.unchanged === 0) {
    parts.push(`Nothing was imported: all ${r.rows_total} rows were rejected.`);
  } else {
    const would = r.dry_run ? 'would be ' : '';
    parts.push(
      `${r.rows_total} rows: ${r.added} ${would}added, ${r.updated} ${would}updated, ${r.unchanged} unchanged, ${r.rejected} rejected.`,
    );
    if (r.dry_run) parts.push('Preview only: nothing was written.');
  }
  // Many rejections read as one: the reason most of them share.
  const top = r.rejected > 1 ? mostCommonReason(r.rejections) : undefined;
  if (top) parts.push(`Most often: ${top}.`);
  if (r.unknown_tokens.length) {
    const rows = r.unknown_tokens.reduce((n, t) => n + t.rows, 0);
    const named = r.unknown_tokens.slice(0, 5).map((t) => `${t.symbol || '?'} ${t.contract_address}`);
    parts.push(
      `${rows} row${rows === 1 ? '' : 's'} of ${r.unknown_tokens.length} unknown token${r.unknown_tokens.length === 1 ? '' : 's'} (${named.join(', ')}${r.unknown_tokens.length > 5 ? ', ...' : ''}): add ${r.unknown_tokens.length === 1 ? 'it' : 'them'} ${byDoor('with `nps tokens add` or in the import dialog', 'to the catalogue (Add to catalogue, in the list of unknown tokens)')}, then import again.`,
    );
  }
  if (r.ignored > 0) {
    const named = r.ignored_tokens.slice(0, 5).map((t) => `${t.symbol || '?'} ${t.contract_address}`);
    parts.push(
      `${r.ignored} row${r.ignored === 1 ? '' : 's'} of ${r.ignored_tokens.length} ignored token${r.ignored_tokens.length === 1 ? '' : 's'} skipped (${named.join(', ')}${r.ignored_tokens.length > 5 ? ', ...' : ''}).`,
    );
  }
  if (r.rejected > 0) parts.push('Row numbers count data rows from 1 (the header row is not counted; blank rows are).');
  if (r.updated > r.updates.length) parts.push(`The first ${r.updates.length} updates are listed.`);
  if (ignored.length) parts.push(`Columns not read: ${ignored.join(', ')}.`);
  return parts.join(' ');
}

/**
 * Import (or preview) a ledger file. Rows are read as a stream and checked one by one; the valid
 * ones are staged (in memory, or in temporary files when many), then applied in one synchronous
 * SQLite transaction, so the store changes all at once or not at all, and no other call of the
 * service runs inside the transaction or sees half an import.
 */
export async function runImport(ctx: ServiceContext, opts: ImportOptions): Promise<ImportReport> {
  const t0 = performance.now();
  const startedAt = ctx.now();
  const { opened, sniffed } = open(opts.source);
  const fileName = opened.name;
  const plan = planImport(ctx, sniffed, opts, fileName);
  refusePlan(plan, fileName);
  const { preset, mapping } = plan;
  const unknownTokens: UnknownTokens = new Map();
  const read = compile(plan, sniffed, opts.walletId, fileName, unknownTokens);

  const importId = randomUUID();
  const idColumn = mapping.columns.transaction_id ?? 'transaction_id';
  // The same file read the same way as an earlier import, nothing updated since: no row need be read.
  const fingerprint = readFingerprint(ctx.db.$client, {
    preset,
    mapping,
    walletId: opts.walletId ?? null,
    walletAddress: plan.walletAddress ?? null,
    catalogue: plan.catalogue,
  });
  // A file read again is answered without reading its rows, but the rows of ignored contracts are counted only by reading them.
  const again =
    plan.catalogue.ignored.size > 0
      ? undefined
      : await importAgain(
          ctx,
          {
            opened,
            sniffed,
            fingerprint,
            importId,
            startedAt,
            t0,
            preset,
            readAs: plan.readAs,
            walletId: importWallet(opts, mapping),
            dryRun: opts.dryRun,
            onProgress: opts.onProgress,
            reader: () => {
              const tokens: UnknownTokens = new Map();
              return { read: compile(plan, sniffed, opts.walletId, fileName, tokens), unknownTokens: tokens };
            },
          },
          (r) => ({ ...r, message: summaryMessage(r, unmappedColumns(sniffed.headers, mapping)) }),
        );
  if (again) return again;
  const writerOpts = { importId, now: ctx.now(), idColumn, rebuildMinRows: opts.rebuildMinRows, fingerprint };
  // The engine decides where the rows are written (a large file: on a thread of its own, while it
  // is read); the rows the file is expected to bring decide whether the secondary indexes are
  // rebuilt rather than kept up to date.
  const writer = await ctx.engine.importWriter({
    ...writerOpts,
    bytes: opened.size,
    threadMinBytes: opts.workerMinBytes,
    expectedRows: sniffed.rowEstimate ?? 0,
  });
  try {
    return await writeRows(ctx, opts, { opened, sniffed, read, writer, importId, startedAt, t0, preset, mapping, plan, unknownTokens });
  } finally {
    // Whatever failed on the way, the store is left as it was (after complete, this does nothing).
    await writer.abort();
  }
}

/** The wallet every row of the file goes to (one without a wallet_id column), as the history keeps it; null for a file that names its rows' wallets. */
const importWallet = (opts: ImportOptions, mapping: Mapping): string | null =>
  mapping.columns.wallet_id === undefined ? (opts.walletId?.toLowerCase() ?? mapping.constants.wallet_id?.toLowerCase() ?? null) : null;

interface Prepared {
  opened: OpenedSource;
  sniffed: Sniffed;
  read: RowReader;
  writer: RowWriter;
  importId: string;
  startedAt: number;
  t0: number;
  preset: string;
  mapping: Mapping;
  plan: Plan;
  unknownTokens: UnknownTokens;
}

async function writeRows(
  ctx: ServiceContext,
  opts: ImportOptions,
  { opened, sniffed, read, writer, importId, startedAt, t0, preset, mapping, plan, unknownTokens }: Prepared,
): Promise<ImportReport> {
  const fileName = opened.name;
  const staging = new Batcher(writer);
  const { rowsTotal, rejections, ignored, sha256 } = await stageRows(opened, sniffed, read, staging, writer, opts.onProgress);
  timing(`reading and checking ${Math.round(performance.now() - t0)} ms`);
  opts.onProgress?.({ done: rowsTotal, bytes: opened.size, totalBytes: opened.size });

  // A preview runs the same writes and rolls them back: it reports exactly what the import would do.
  let write = false;
  const applied: WriterStats = await writer.complete((applied) => {
    rejections.push(...applied.repeats);
    rejections.sort((a, b) => a.row_number - b.row_number);
    write = !opts.dryRun && applied.added + applied.updated + applied.unchanged > 0;
    if (!write) return null;
    return {
      summary: {
        import_id: importId,
        file_name: fileName,
        file_sha256: sha256,
        file_size: opened.size,
        format: sniffed.format,
        preset,
        rows_total: rowsTotal,
        added: applied.added,
        updated: applied.updated,
        unchanged: applied.unchanged,
        rejected: rejections.length,
        started_at: startedAt,
        finished_at: ctx.now(),
        wallet_id: importWallet(opts, mapping),
        read_as: plan.readAs,
      },
      rejections,
      ...(plan.keepAddress && opts.walletId ? { address: { wallet_id: opts.walletId.toLowerCase(), ...plan.keepAddress } } : {}),
    };
  });
  const report: Omit<ImportReport, 'message'> = {
    import_id: write ? importId : null,
    dry_run: opts.dryRun,
    file_name: fileName,
    preset,
    format: sniffed.format,
    rows_total: rowsTotal,
    added: applied.added,
    updated: applied.updated,
    unchanged: applied.unchanged,
    rejected: rejections.length,
    rejections,
    updates: applied.updates,
    wallets_created: applied.walletsCreated,
    unknown_tokens: [...unknownTokens.values()].sort((a, b) => b.rows - a.rows),
    ignored: [...ignored.values()].reduce((n, t) => n + t.rows, 0),
    ignored_tokens: ignoredList(ignored),
    read_as: plan.readAs,
    duration_ms: Math.round(performance.now() - t0),
  };
  return { ...report, message: summaryMessage(report, unmappedColumns(sniffed.headers, mapping)) };
}
