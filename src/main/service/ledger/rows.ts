import {
  LEDGER_FIELDS,
  LEDGER_STATUSES,
  LEDGER_TYPES,
  MAPPING_EXTRA_INPUTS,
  type LedgerField,
  type LedgerStatus,
  type LedgerType,
  type Mapping,
  type MappingInput,
  type UnknownToken,
} from '../../../shared/ledger';
import { AddressCache } from './addresses';
import { compileTimeReader } from './dates';
import { compileDecimalReader } from './numbers';
import { deriveTransactionId } from './ids';
import { findHeader } from './presets';
import { canonicalWord, CellError, CONTROL_CHAR, decimalPlaces, detach, readHash, TEXT_LIMIT, uuidLower, writtenPlaces } from './values';
import { byDoor } from '../said';

/* One row of a ledger file -> one normalised record, or the column at fault and why. */

export interface CatalogueView {
  chains: Map<string, { family: string; native_token_id: string; native_symbol: string; name: string; is_testnet: boolean }>;
  tokens: Map<string, { chain_id: string; decimal: number; symbol: string }>;
  /** `${chain_id}\n${lower-case contract}` -> token_id */
  byContract: Map<string, string>;
  /** `${chain_id}\n${upper-case symbol}` -> token_id */
  bySymbol: Map<string, string>;
}

/** Tokens the rows name by contract that the catalogue lacks, by `${chain_id}\n${lower-case contract}`. */
export type UnknownTokens = Map<string, UnknownToken>;

/** The whole file cannot be read with this mapping (a column is missing, a field has no source). */
export class FileProblem extends Error {}

/** A rejected row: the column (as the file names it), the reason, and the cell's text. */
export class RowProblem {
  constructor(
    readonly column: string,
    readonly reason: string,
    readonly value = '',
  ) {}
}

/** Index of each field in a normalised record (LEDGER_FIELDS order); '' stands for "not recorded". */
const F = Object.fromEntries(LEDGER_FIELDS.map((f, i) => [f, i])) as Record<LedgerField, number>;
/** After the fields, a row's values end with its movement (import-repository.ts's STORED_FIELDS). */
const N = LEDGER_FIELDS.length;
/** Movement numbers of token transfers start here: 0 is the native transfer, 1 + n the n-th internal one. */
const TOKEN_MOVEMENT = 1_000_000;

interface Source {
  /** Column index, or -1. */
  index: number;
  constant: string | undefined;
  /** How a rejection names it: the file's column, or the field for a constant. */
  label: string;
}

export interface RowReaderOptions {
  headers: readonly string[];
  mapping: Mapping;
  catalogue: CatalogueView;
  /** Wallet of every row (the request's wallet_id / --wallet-id); wins over the mapping's constant. */
  walletId?: string;
  /** The address the export was made for; wins over the mapping's constant. */
  walletAddress?: string;
  /** Collects the tokens rows name by a contract the catalogue lacks (their rows are rejected). */
  unknownTokens?: UnknownTokens;
}

/** A row's cells (and its data row number, for what a failing file says) to its record, or why it is rejected. Throws FileProblem when the file cannot be read as a whole. */
export type RowReader = (cells: readonly string[], rowNumber?: number) => string[] | RowProblem;

/** A 52-bit digest of a text (two 26-bit FNV-1a halves): a key kept in a number. */
function digest(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 6) * 0x4000000 + (b >>> 6);
}

const readType = canonicalWord(LEDGER_TYPES);
const readStatus = canonicalWord(LEDGER_STATUSES);

function valueMap<T extends string>(
  map: Record<string, T> | undefined,
  canonical: (cell: string) => T | undefined,
): (cell: string) => T | undefined {
  if (!map) return canonical;
  const lower = new Map(Object.entries(map).map(([k, v]) => [k.trim().toLowerCase(), v]));
  const any = map['*'];
  return (cell) => {
    const hit = Object.hasOwn(map, cell) ? map[cell] : lower.get(cell.toLowerCase());
    if (hit !== undefined) return hit;
    const own = canonical(cell);
    if (own !== undefined) return own;
    return cell !== '' ? any : undefined;
  };
}

interface Sources {
  src: Record<MappingInput, Source>;
  constants: Partial<Record<string, string>>;
  /** Mapped columns the header lacks. */
  missing: string[];
}

/** Where each field and extra input is read from: its column, or its constant. */
function sourcesOf(opts: RowReaderOptions): Sources {
  const { headers, mapping } = opts;
  const constants: Partial<Record<string, string>> = { ...mapping.constants };
  if (opts.walletId !== undefined) constants.wallet_id = opts.walletId;
  if (opts.walletAddress !== undefined) constants.wallet_address = opts.walletAddress;
  const missing: string[] = [];
  const source = (field: MappingInput): Source => {
    const column = mapping.columns[field];
    let index = -1;
    if (column !== undefined) {
      const h = findHeader(headers, column);
      if (h === undefined) missing.push(`${JSON.stringify(column)} (for ${field})`);
      else index = headers.indexOf(h);
    }
    const constant = constants[field];
    return { index, constant: constant === undefined ? undefined : constant.trim(), label: index >= 0 ? headers[index]!.trim() : field };
  };
  const src = Object.fromEntries([...LEDGER_FIELDS, ...MAPPING_EXTRA_INPUTS].map((f) => [f, source(f)])) as Record<MappingInput, Source>;
  return { src, constants, missing };
}

const has = (s: Source) => s.index >= 0 || s.constant !== undefined;

/** An error cell that names an error: not empty, and not SUCCESS (Tron's contractRet of a transfer that ran). */
const isError = (cell: string) => cell !== '' && cell.toUpperCase() !== 'SUCCESS';

/**
 * What the file as mapped cannot be read without: a mapped column the header lacks, or a field with
 * no column or constant; null when nothing. `asked`: the choices the import asks the user for
 * (import.ts's needs), whose fields are not problems: a wallet, a chain (which also decides the
 * token of an export of the chain's coin), a token, the wallet's address (which tells the type).
 */
export function mappingProblem(opts: RowReaderOptions, asked: ReadonlySet<string> = new Set()): string | null {
  const { src, constants, missing } = sourcesOf(opts);
  if (missing.length) return `the header has no column ${missing.join(', ')}`;
  const { mapping } = opts;
  const walletAddress = constants.wallet_address?.trim() || undefined;
  const typeFromInOut = has(src.amount_in) || has(src.amount_out);
  const typeFromAddress = walletAddress !== undefined && (has(src.from) || has(src.to));
  const needs: string[] = [];
  if (!has(src.wallet_id) && !asked.has('wallet_id'))
    needs.push(`wallet_id (${byDoor('give --wallet NAME or --wallet-id W', 'choose the Wallet')}, or a wallet_id column)`);
  if (!has(src.chain_id) && !asked.has('chain_id'))
    needs.push(`chain_id (${byDoor('give --chain', 'choose the Chain of the file')}, or a chain_id column)`);
  if (!has(src.token_id) && !has(src.token_contract) && !has(src.token_symbol) && !asked.has('token_id') && !asked.has('chain_id'))
    needs.push(`token_id (${byDoor('give --token', 'choose the Token of every row')}, or a token column)`);
  if (!has(src.status)) needs.push('status');
  if (!has(src.amount) && !typeFromInOut) needs.push('amount');
  if (!has(src.type) && !typeFromInOut && !typeFromAddress && !mapping.signed_amounts && !asked.has('wallet_address')) {
    needs.push(has(src.from) || has(src.to) ? 'type (or wallet_address, to tell deposits from withdrawals)' : 'type');
  }
  if (!has(src.transaction_id) && !mapping.id_fields.some((f) => has(src[f]))) needs.push('transaction_id (or a hash to derive it from)');
  return needs.length ? `no column or constant gives ${needs.join(', ')}` : null;
}

/**
 * Compile a mapping against a file's header into a function that reads one row. Throws
 * FileProblem when the file as a whole cannot be read this way.
 */
export function compileRowReader(opts: RowReaderOptions): RowReader {
  const { mapping, catalogue } = opts;
  const problem = mappingProblem(opts);
  if (problem !== null) throw new FileProblem(problem);
  const { src, constants } = sourcesOf(opts);
  const walletAddress = constants.wallet_address?.trim() || undefined;
  const deriveId = !has(src.transaction_id);
  const typeFromInOut = has(src.amount_in) || has(src.amount_out);

  const typeOf = valueMap(mapping.values.type, readType);
  const statusOf = valueMap(mapping.values.status, readStatus);
  const readAmount = compileDecimalReader(mapping.number);
  let readTime: ReturnType<typeof compileTimeReader>;
  try {
    readTime = compileTimeReader(mapping.date);
  } catch (err) {
    throw new FileProblem(err instanceof Error ? err.message : String(err));
  }
  const addresses = new AddressCache();
  const walletAddressLower = walletAddress?.toLowerCase();

  /** The cell (trimmed), the constant where the cell is empty; a cell disagreeing with a constant is a problem. */
  const get = (s: Source, cells: readonly string[]): string | RowProblem => {
    let v = s.index >= 0 ? (cells[s.index] ?? '') : '';
    if (v !== '' && (v.charCodeAt(0) <= 32 || v.charCodeAt(v.length - 1) <= 32)) v = v.trim();
    if (s.constant !== undefined) {
      if (v === '') return s.constant;
      if (v.toLowerCase() !== s.constant.toLowerCase())
        return new RowProblem(s.label, `is ${JSON.stringify(v)}, but this import is for ${JSON.stringify(s.constant)}`, v);
    }
    return v;
  };

  const decimalField = (s: Source, cells: readonly string[], signed = false): string | RowProblem => {
    const v = get(s, cells);
    if (v instanceof RowProblem || v === '') return v;
    const d = readAmount(v);
    if (d instanceof CellError) return new RowProblem(s.label, d.reason, v);
    if (!signed && d.startsWith('-'))
      return new RowProblem(s.label, `${JSON.stringify(v)} is negative; amounts are recorded as numbers >= 0`, v);
    return d;
  };

  const timeField = (s: Source, cells: readonly string[]): string | RowProblem => {
    const v = get(s, cells);
    if (v instanceof RowProblem || v === '') return v;
    const t = readTime(v);
    return t instanceof CellError ? new RowProblem(s.label, t.reason, v) : t;
  };

  const required = (s: Source, field: string) => new RowProblem(s.index >= 0 ? s.label : field, 'is required');
  const hasAmount = has(src.amount);
  const tokenPlaces = mapping.number.token_places === true && hasAmount;
  const hasContract = has(src.token_contract);
  const hasSymbol = has(src.token_symbol);
  const hasFrom = has(src.from);
  const hasCreated = has(src.created_contract);
  const hashFromId = deriveId && has(src.hash) && mapping.id_fields.includes('hash');
  const hasName = has(src.token_name);
  const unknown = opts.unknownTokens;
  const ADD_TOKEN = byDoor(
    'add it with `nps tokens add` or in the import dialog, then import again',
    "add it to the catalogue (Add to catalogue, in the import's list of unknown tokens), then import again",
  );

  /** A token the catalogue lacks: noted for the report (with the most decimal places its amounts show). */
  const noteUnknown = (cells: readonly string[], chainId: string, contract: string, symbol: string): void => {
    if (!unknown) return;
    const key = `${chainId}\n${contract.toLowerCase()}`;
    let entry = unknown.get(key);
    if (!entry) {
      const name = hasName ? get(src.token_name, cells) : '';
      entry = {
        chain_id: chainId,
        contract_address: detach(contract),
        symbol: detach(symbol),
        name: typeof name === 'string' ? detach(name) : '',
        rows: 0,
        decimal_hint: 0,
      };
      unknown.set(key, entry);
    }
    entry.rows++;
    const amountCell = hasAmount ? get(src.amount, cells) : '';
    const amount = typeof amountCell === 'string' && amountCell !== '' ? readAmount(amountCell) : '';
    if (typeof amount === 'string') entry.decimal_hint = Math.max(entry.decimal_hint, decimalPlaces(amount));
  };

  /** A row without a contract: the chain's coin when its symbol, if any, is the coin's; never another token by its symbol. */
  const nativeUnlessSymbol = (symbol: string, chain: { native_token_id: string; native_symbol: string }): string | RowProblem =>
    symbol !== '' && symbol.toUpperCase() !== chain.native_symbol.toUpperCase()
      ? new RowProblem(
          src.token_symbol.label,
          `names the token ${JSON.stringify(symbol)} but no contract: a symbol alone does not identify a token (other tokens use the same symbol); if the whole file is of one token, ${byDoor('give --token', 'give token_id a constant in the mapping')}`,
          symbol,
        )
      : chain.native_token_id;

  /**
   * The row's token: the one given for the whole import (--token, or a token_id column), else the
   * one whose contract the row names on its chain. A symbol never picks a token where the file
   * has a contract column (scam tokens reuse popular symbols): an empty contract is the chain's
   * native coin only when the symbol, if any, is the coin's. Only a mapping without a contract
   * column (a user's own spreadsheet) finds the token by its symbol on the row's chain.
   */
  const tokenOf = (
    cells: readonly string[],
    chainId: string,
    chain: { native_token_id: string; native_symbol: string },
  ): { id: string; decimal: number } | RowProblem => {
    const given = get(src.token_id, cells);
    if (given instanceof RowProblem) return given;
    let tokenId = given;
    let label = src.token_id.label;
    let symbol = '';
    if (hasSymbol) {
      const s = get(src.token_symbol, cells);
      if (s instanceof RowProblem) return s;
      symbol = s;
    }
    if (hasContract) {
      const c = get(src.token_contract, cells);
      if (c instanceof RowProblem) return c;
      const contract = c === '_' || c === '0' ? '' : c;
      if (contract !== '') {
        const known = catalogue.byContract.get(`${chainId}\n${contract.toLowerCase()}`);
        if (tokenId !== '' && known !== tokenId) {
          return new RowProblem(
            src.token_contract.label,
            `is ${contract}, which is not the contract of ${tokenId} on ${chainId}`,
            contract,
          );
        }
        if (known === undefined) {
          noteUnknown(cells, chainId, contract, symbol);
          const called = symbol !== '' ? ` (the file calls it ${JSON.stringify(symbol)})` : '';
          return new RowProblem(
            src.token_contract.label,
            `unknown token: no token with contract ${contract} on ${chainId} in the catalogue${called}; ${ADD_TOKEN}`,
            contract,
          );
        }
        tokenId = known;
        label = src.token_contract.label;
      } else if (tokenId === '') {
        const native = nativeUnlessSymbol(symbol, chain);
        if (native instanceof RowProblem) return native;
        tokenId = native;
      }
    } else if (tokenId === '' && symbol !== '' && mapping.token_by_symbol === false) {
      // An explorer's file whose contract column is gone (deleted in a spreadsheet): the symbol still picks nothing.
      const native = nativeUnlessSymbol(symbol, chain);
      if (native instanceof RowProblem) return native;
      tokenId = native;
      label = src.token_symbol.label;
    } else if (tokenId === '' && symbol !== '') {
      tokenId = catalogue.bySymbol.get(`${chainId}\n${symbol.toUpperCase()}`) ?? '';
      label = src.token_symbol.label;
      if (tokenId === '')
        return new RowProblem(label, `no token ${JSON.stringify(symbol)} on ${chainId} in the catalogue; ${ADD_TOKEN}`, symbol);
    }
    if (tokenId === '') return required(src.token_id, 'token_id');
    const token = catalogue.tokens.get(tokenId);
    if (!token) return new RowProblem(label, `unknown token ${JSON.stringify(tokenId)} (not in the catalogue)`, tokenId);
    if (token.chain_id !== chainId) return new RowProblem(label, `token ${tokenId} is on ${token.chain_id}, not ${chainId}`, tokenId);
    // A token given for the whole file, on a row that names another symbol: that row is of another token (a TRX row of a "USDT" file).
    if (given !== '' && symbol !== '' && symbol.toUpperCase() !== token.symbol.toUpperCase() && label === src.token_id.label)
      return new RowProblem(
        src.token_symbol.label,
        `names the token ${JSON.stringify(symbol)}, not ${tokenId} (${token.symbol}) given for this file`,
        symbol,
      );
    return { id: tokenId, decimal: token.decimal };
  };

  /*
   * Which movement of its transaction a row is. Rows of one hash follow each other in an explorer's
   * export, in the order of its transfers; counting the rows of the current hash with the same key
   * (the id_fields) tells the n-th internal or token transfer apart. That order is the only thing
   * that tells two such transfers apart, so a file whose rows were moved (sorted in a spreadsheet),
   * in which a key of a hash comes back after other hashes' rows, fails as a whole: numbered by
   * where they now stand, its transfers would take each other's records (9.5 DAI becoming 0.5).
   * The keys of runs already passed are kept as 52-bit digests with the row that began them
   * (a digest shared by two keys only refuses a file, never books it wrong).
   */
  const kind = mapping.movement;
  let runHash = '';
  const runCounts = new Map<string, { n: number; row: number }>();
  const passed = new Map<number, number>();
  const positionOf = (hash: string, key: string, rowNumber: number, tokenId: string): number => {
    if (hash !== runHash) {
      for (const [k, first] of runCounts) passed.set(digest(`${runHash}\n${k}`), first.row);
      runHash = hash;
      runCounts.clear();
    }
    const seen = runCounts.get(key);
    if (seen !== undefined) return seen.n++;
    const before = passed.get(digest(`${hash}\n${key}`));
    if (before !== undefined)
      throw new FileProblem(
        `data rows ${before} and ${rowNumber} are two ${kind === 'internal' ? 'internal transfers' : `transfers of ${tokenId}`} of transaction ${hash} with other transactions' rows between them: the rows are not in the explorer's order (sorted in a spreadsheet?), and that order is all that tells such transfers apart; import the file as the explorer wrote it, or sort it back by block and time`,
      );
    runCounts.set(key, { n: 1, row: rowNumber });
    return 0;
  };
  const hasLogIndex = has(src.log_index);

  return (cells, rowNumber = 0) => {
    const out = new Array<string>(N + 1);

    const wallet = get(src.wallet_id, cells);
    if (wallet instanceof RowProblem) return wallet;
    if (wallet === '') return required(src.wallet_id, 'wallet_id');
    const walletId = uuidLower(wallet);
    if (walletId === undefined) return new RowProblem(src.wallet_id.label, `${JSON.stringify(wallet)} is not a UUID`, wallet);
    out[F.wallet_id] = walletId;

    const chainId = get(src.chain_id, cells);
    if (chainId instanceof RowProblem) return chainId;
    if (chainId === '') return required(src.chain_id, 'chain_id');
    const chain = catalogue.chains.get(chainId);
    if (!chain) return new RowProblem(src.chain_id.label, `unknown chain ${JSON.stringify(chainId)} (not in the catalogue)`, chainId);
    out[F.chain_id] = chainId;

    const token = tokenOf(cells, chainId, chain);
    if (token instanceof RowProblem) return token;
    const tokenId = token.id;
    out[F.token_id] = tokenId;

    let amount = hasAmount ? decimalField(src.amount, cells, mapping.signed_amounts) : '';
    if (amount instanceof RowProblem) return amount;
    let amountLabel = src.amount.label;
    let type: LedgerType | undefined;
    const typeCell = get(src.type, cells);
    if (typeCell instanceof RowProblem) return typeCell;
    if (typeCell !== '') {
      type = typeOf(typeCell);
      if (type === undefined)
        return new RowProblem(src.type.label, `${JSON.stringify(typeCell)} is not a type (Deposit or Withdrawal)`, typeCell);
    }
    if (typeFromInOut) {
      const valueIn = decimalField(src.amount_in, cells);
      if (valueIn instanceof RowProblem) return valueIn;
      const valueOut = decimalField(src.amount_out, cells);
      if (valueOut instanceof RowProblem) return valueOut;
      const isIn = valueIn !== '' && valueIn !== '0';
      const isOut = valueOut !== '' && valueOut !== '0';
      if (isIn && isOut)
        return new RowProblem(src.amount_in.label, `both ${src.amount_in.label} and ${src.amount_out.label} are non-zero`, valueIn);
      if (amount === '') {
        amount = isIn ? valueIn : isOut ? valueOut : '0';
        amountLabel = isOut ? src.amount_out.label : src.amount_in.label;
      }
      if (type === undefined && (isIn || isOut)) type = isIn ? 'Deposit' : 'Withdrawal';
    }
    if (amount === '') return required(src.amount, 'amount');
    if (mapping.signed_amounts && amount.startsWith('-')) {
      amount = amount.slice(1);
      type ??= 'Withdrawal';
    }

    let toAddress = get(src.to, cells);
    if (toAddress instanceof RowProblem) return toAddress;
    let toLabel = src.to.label;
    // A contract creation has no To: it went to the contract it made.
    if (toAddress === '' && hasCreated) {
      const created = get(src.created_contract, cells);
      if (created instanceof RowProblem) return created;
      toAddress = created;
      toLabel = src.created_contract.label;
    }
    let fromAddress = '';
    if (hasFrom) {
      const f = get(src.from, cells);
      if (f instanceof RowProblem) return f;
      fromAddress = f;
    }
    if (type === undefined && walletAddressLower !== undefined) {
      const isFrom = fromAddress.toLowerCase() === walletAddressLower;
      if (isFrom || toAddress.toLowerCase() === walletAddressLower) type = isFrom ? 'Withdrawal' : 'Deposit';
      else
        return new RowProblem(
          src.from.index >= 0 ? src.from.label : src.to.label,
          `neither from nor to is the wallet's address ${walletAddress}, so it is neither a deposit nor a withdrawal (${byDoor('is --wallet-address right?', 'is the Wallet address of the import dialog right?')})`,
          src.from.index >= 0 ? fromAddress : toAddress,
        );
    }
    if (type === undefined && mapping.signed_amounts && amount !== '0') type = 'Deposit';
    if (type === undefined && typeFromInOut && (hasFrom || has(src.to)))
      return new RowProblem(
        src.amount_in.label,
        `${src.amount_in.label} and ${src.amount_out.label} are both 0, so only the wallet's address tells a deposit from a withdrawal: give it (${byDoor('--wallet-address', 'Wallet address, in the import dialog')})`,
        amount,
      );
    if (type === undefined) return required(src.type, 'type');
    out[F.type] = type;

    if (decimalPlaces(amount) > token.decimal) {
      return new RowProblem(amountLabel, `${amount} has ${decimalPlaces(amount)} decimal places; ${tokenId} has ${token.decimal}`, amount);
    }
    if (tokenPlaces) {
      const written = get(src.amount, cells) as string;
      const places = writtenPlaces(written, amount);
      if (places !== undefined && places !== token.decimal)
        return new RowProblem(
          amountLabel,
          `${written} is written with ${places} decimal places and ${tokenId} has ${token.decimal}: this export writes every amount to its token's precision, so the row moves another token, which the file does not name`,
          written,
        );
    }
    out[F.amount] = amount;

    const statusCell = get(src.status, cells);
    if (statusCell instanceof RowProblem) return statusCell;
    const status: LedgerStatus | undefined = statusOf(statusCell);
    if (status === undefined) {
      if (statusCell === '' && !mapping.values.status?.['']) return required(src.status, 'status');
      return new RowProblem(src.status.label, `${JSON.stringify(statusCell)} is not a status (${LEDGER_STATUSES.join(', ')})`, statusCell);
    }
    // An explorer's error cell fails the transaction even where its status column reads as a success.
    const errorCell = get(src.error, cells);
    if (errorCell instanceof RowProblem) return errorCell;
    out[F.status] = isError(errorCell) && status !== 'Rejected' ? 'Failed' : status;

    if (toAddress !== '') {
      const problem = addresses.problem(toAddress, chain.family);
      if (problem !== null) return new RowProblem(toLabel, problem, toAddress);
    }
    out[F.to] = toAddress;

    let hash = get(src.hash, cells);
    if (hash instanceof RowProblem) return hash;
    if (hash !== '') {
      const h = readHash(hash, chain.family);
      if (h instanceof CellError) return new RowProblem(src.hash.label, h.reason, hash);
      hash = h;
    }
    out[F.hash] = hash;

    const requestId = get(src.request_id, cells);
    if (requestId instanceof RowProblem) return requestId;
    if (requestId.length > TEXT_LIMIT) return new RowProblem(src.request_id.label, `is longer than ${TEXT_LIMIT} characters`);
    if (CONTROL_CHAR.test(requestId)) return new RowProblem(src.request_id.label, 'contains a control character (tab, line break, ...)');
    out[F.request_id] = requestId;

    for (const field of ['fee_ratio', 'fee_fixed', 'fee', 'er', 'amount_actual'] as const) {
      const v = decimalField(src[field], cells);
      if (v instanceof RowProblem) return v;
      out[F[field]] = field === 'fee' && mapping.fee_on === 'Withdrawal' && type !== 'Withdrawal' ? '' : v;
    }
    for (const field of ['created_at', 'confirmed_at', 'completed_at'] as const) {
      const v = timeField(src[field], cells);
      if (v instanceof RowProblem) return v;
      out[F[field]] = v;
    }

    let position = 0;
    let movement = 0;
    if (kind !== 'native') {
      let logIndex: number | undefined;
      if (hasLogIndex) {
        const li = get(src.log_index, cells);
        if (li instanceof RowProblem) return li;
        if (li !== '') {
          if (!/^\d{1,6}$/.test(li))
            return new RowProblem(src.log_index.label, `${JSON.stringify(li)} is not a log index (a whole number)`, li);
          logIndex = Number(li);
        }
      }
      const same = mapping.id_fields.map((f) => (f in F ? out[F[f as LedgerField]] : get(src[f], cells))).join('\n');
      position = logIndex ?? positionOf(hash, kind === 'internal' ? '' : same, rowNumber, tokenId);
      if (kind === 'internal') movement = 1 + position;
      else if (tokenId !== chain.native_token_id) movement = TOKEN_MOVEMENT + position;
    }

    if (deriveId) {
      if (hashFromId && hash === '') {
        return new RowProblem(src.hash.label, 'is required: the file has no transaction_id, so it is derived from the hash');
      }
      const parts = [out[F.wallet_id]!, chainId];
      for (const f of mapping.id_fields) {
        if (f === 'from') parts.push(chain.family === 'ETH' ? fromAddress.toLowerCase() : fromAddress);
        else if (f === 'to') parts.push(chain.family === 'ETH' ? toAddress.toLowerCase() : toAddress);
        else if (f in F) parts.push(out[F[f as LedgerField]]!);
        else parts.push(get(src[f], cells) as string);
      }
      // The n-th internal transfer of a hash, or a token transfer after others of the same hash and
      // id_fields: parts of their own, so no movement of a transaction overwrites another. (A native
      // row's parts are as they always were: stores keep their records.)
      if (kind === 'internal') parts.push('internal', String(position));
      else if (kind === 'token' && position > 0) parts.push('#', String(position));
      out[F.transaction_id] = deriveTransactionId(parts);
    } else {
      const id = get(src.transaction_id, cells);
      if (id instanceof RowProblem) return id;
      if (id === '') return required(src.transaction_id, 'transaction_id');
      const transactionId = uuidLower(id);
      if (transactionId === undefined) return new RowProblem(src.transaction_id.label, `${JSON.stringify(id)} is not a UUID`, id);
      out[F.transaction_id] = transactionId;
    }
    // A file with ids of its own (the native format) does not say the movement: a record keeps its own.
    out[N] = deriveId ? String(movement) : '';
    return out;
  };
}

/** The header columns no part of the mapping reads. */
export function unmappedColumns(headers: readonly string[], mapping: Mapping): string[] {
  const used = new Set(Object.values(mapping.columns).map((c) => findHeader(headers, c)));
  // A blank column's name can be a pair of quotes after a space (`, ""`, which is no quoted cell): no name either.
  return headers.filter((h) => h.replace(/["\s]/g, '') !== '' && !used.has(h));
}
