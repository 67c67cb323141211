import Big from 'big.js';
import {
  placesOf,
  type BalanceCheck,
  type BalancesAt,
  type balancesContract,
  type BalanceStatement,
  type BalancesPeriod,
  type Movement,
  type PeriodBalance,
} from '../../../shared/balances';
import type { LedgerStatus, LedgerType } from '../../../shared/ledger';
import type { ReportBalance } from '../../../shared/reports';
import type { CallMeta, HandlersOf, ServiceContext } from '../context';
import type { Db } from '../db/open';
import { invalidParam } from '../errors';
import { bucketSums, statementRows, tokenInfo, walletExists, walletNames, type BucketSums } from './balances-repository';
import { readMoment, readPeriod, readZone } from './period';

/*
 * Balances from the ledger (docs/ledger.md, "Balances"). A record moves the balance of its wallet in
 * its own token (the fee too: fee_ratio is a share of the amount, so the fee is in the amount's
 * token), at one moment: completed_at, else confirmed_at, else created_at.
 *
 * - Completed Deposit: `amount` in, `fee` out (the wallet is credited amount - fee, the source's
 *   amount_actual).
 * - Completed Withdrawal: what reached `to` out (`amount_actual`, the source's "amount after fee";
 *   `amount` when the ledger does not record it, as explorer exports do not), and `fee` out. So a
 *   record of the service itself takes `amount` in all (amount_actual + fee), and an explorer's
 *   withdrawal its value plus the network fee paid on top.
 * - Failed Withdrawal with a hash: it went on chain and failed there, and the network kept its fee:
 *   `fee` out, nothing else.
 * - Anything else (Pending, Confirming, Rejected, a Failed deposit, a Failed withdrawal that never
 *   reached the chain) moves nothing.
 *
 * The rule is written once, as SQL (balances-repository.ts: MOVES, AT, FLOWS); sums are exact.
 */

const ZERO = new Big(0);
const big = (text: string | null | undefined): Big => (text ? new Big(text) : ZERO);

/** A decimal as the wire carries it: plain, never exponent notation, no "-0". */
const plain = (x: Big): string => (x.eq(0) ? '0' : x.toFixed());

/** A wallet's token over a period, as it is summed. */
interface Sums {
  wallet_id: string;
  chain_id: string;
  token_id: string;
  opening: Big;
  inflow: Big;
  outflow: Big;
  fees: Big;
  movements: number;
}

const netOf = (b: BucketSums): Big => big(b.inflow).minus(big(b.outflow)).minus(big(b.fees));

/**
 * Per wallet and token: the balance before `from` (opening) and what moved from `from` to `to`, both
 * ends inclusive (null: open). Records with no time are counted apart (`undated`), in no sum.
 */
function sumPeriod(db: Db, walletIds: readonly string[] | null, from: number | null, to: number | null, tokenId?: string) {
  const groups = new Map<string, Sums>();
  let undated = 0;
  for (const b of bucketSums(db, { walletIds, tokenId, from, to })) {
    if (b.bucket === 'undated') {
      undated += b.records;
      continue;
    }
    const key = `${b.wallet_id}|${b.chain_id}|${b.token_id}`;
    let g = groups.get(key);
    if (!g) {
      g = {
        wallet_id: b.wallet_id,
        chain_id: b.chain_id,
        token_id: b.token_id,
        opening: ZERO,
        inflow: ZERO,
        outflow: ZERO,
        fees: ZERO,
        movements: 0,
      };
      groups.set(key, g);
    }
    if (b.bucket === 'before') g.opening = g.opening.plus(netOf(b));
    else {
      g.inflow = g.inflow.plus(big(b.inflow));
      g.outflow = g.outflow.plus(big(b.outflow));
      g.fees = g.fees.plus(big(b.fees));
      g.movements += b.records;
    }
  }
  const rows = [...groups.values()].sort(
    (a, b) => a.wallet_id.localeCompare(b.wallet_id) || a.chain_id.localeCompare(b.chain_id) || a.token_id.localeCompare(b.token_id),
  );
  return { rows, undated };
}

const closingOf = (g: Sums): Big => g.opening.plus(g.inflow).minus(g.outflow).minus(g.fees);

function periodRow(g: Sums): PeriodBalance {
  return {
    wallet_id: g.wallet_id,
    chain_id: g.chain_id,
    token_id: g.token_id,
    opening: plain(g.opening),
    inflow: plain(g.inflow),
    outflow: plain(g.outflow),
    fees: plain(g.fees),
    closing: plain(closingOf(g)),
    movements: g.movements,
  };
}

/** Each wallet's balance of each token at `at` (inclusive): everything placed up to it. */
function balancesAt(db: Db, walletIds: readonly string[] | null, at: number) {
  const { rows, undated } = sumPeriod(db, walletIds, null, at);
  return {
    rows: rows.map((g) => ({ wallet_id: g.wallet_id, chain_id: g.chain_id, token_id: g.token_id, balance: plain(closingOf(g)) })),
    undated,
  };
}

/** One wallet's balance of one token at `at`. */
function balanceOf(db: Db, walletId: string, tokenId: string, at: number): Big {
  const [g] = sumPeriod(db, [walletId], null, at, tokenId).rows;
  return g ? closingOf(g) : ZERO;
}

/**
 * The period's balances of the report (shared/reports.ts): the Balances screen's rows (opening,
 * inflow, outflow, fees, closing, by the same rule), per wallet, with its name, and token.
 */
export function periodBalances(db: Db, walletIds: string[] | null, from: number | null, to: number | null): ReportBalance[] {
  const names = walletNames(db);
  const ids = walletIds === null || walletIds.length === 0 ? null : walletIds.map((w) => w.toLowerCase());
  return sumPeriod(db, ids, from, to).rows.map((g) => ({ ...periodRow(g), wallet_name: names.get(g.wallet_id) ?? '' }));
}

/**
 * The statement of a wallet's token over a period: the opening balance, every record that moved it
 * in order (time, then transaction_id) with the balance after it, the closing balance; one page of
 * the lines, the balances over all of them.
 */
function statement(
  db: Db,
  walletId: string,
  tokenId: string,
  chainId: string,
  period: { from: number; to: number },
  page: number,
  pageSize: number,
): BalanceStatement {
  const opening = balanceOf(db, walletId, tokenId, period.from - 1);
  const first = (page - 1) * pageSize;
  const list: Movement[] = [];
  let balance = opening;
  let total = 0;
  for (const r of statementRows(db, walletId, tokenId, period.from, period.to)) {
    const inflow = big(r.inflow);
    const outflow = big(r.outflow);
    const fees = big(r.fee);
    const change = inflow.minus(outflow).minus(fees);
    balance = balance.plus(change);
    if (total >= first && list.length < pageSize)
      list.push({
        transaction_id: r.transaction_id,
        type: r.type as LedgerType,
        status: r.status as LedgerStatus,
        hash: r.hash ?? '',
        at: r.at,
        amount: r.amount,
        fee: r.fee ?? '',
        amount_actual: r.amount_actual ?? '',
        inflow: plain(inflow),
        outflow: plain(outflow),
        fees: plain(fees),
        change: plain(change),
        balance: plain(balance),
      });
    total++;
  }
  return {
    wallet_id: walletId,
    chain_id: chainId,
    token_id: tokenId,
    from: period.from,
    to: period.to,
    opening: plain(opening),
    closing: plain(balance),
    list,
    total,
    page,
    page_size: pageSize,
  };
}

function requireWallet(db: Db, walletId: string | undefined): string[] | null {
  if (walletId === undefined) return null;
  const id = walletId.toLowerCase();
  if (!walletExists(db, id)) throw invalidParam('wallet_id', `no wallet ${JSON.stringify(walletId)}`);
  return [id];
}

function requireToken(db: Db, tokenId: string): { chain_id: string; symbol: string } {
  const token = tokenInfo(db, tokenId);
  if (!token) throw invalidParam('token_id', `unknown token ${JSON.stringify(tokenId)} (not in the catalogue)`);
  return token;
}

/** A period whose both ends are given, read as ledger/period.ts reads one. */
function closedPeriod(input: { from: string; to: string; time_zone?: string }): { from: number; to: number } {
  const p = readPeriod(input);
  return { from: p.from!, to: p.to! };
}

/**
 * A balance difference as an exception: the exception queue (tickets/, a domain above the ledger)
 * opens it, or updates the Pending one of the same subject, and answers its ticket_id.
 */
interface BalanceException {
  /** wallet_id|token_id|at (Unix ms): the same check again updates its exception. */
  subject: string;
  wallet_id: string;
  chain_id: string;
  token_id: string;
  /** The difference. */
  amount: string;
  desc: string;
  /** JSON of the check's figures. */
  claimed: string;
}

/** What the balance check asks of the exception queue. */
export interface BalanceExceptions {
  /** Open the exception, or update the Pending one of its subject; answers its ticket_id. */
  raise: (exception: BalanceException, meta: CallMeta) => string;
  /** Resolve the Pending exception of the subject with the reason; answers its ticket_id, or null when none is Pending. */
  settle: (subject: string, reason: string, meta: CallMeta) => string | null;
}

/**
 * The moment of a check in words: a date is the end of that day in its zone, which is what a
 * statement dated that day means; a moment is shown as given, in UTC.
 */
function momentWords(atText: string, at: number, zone: string): string {
  const day = atText.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(day)) return `at the end of ${day} (${zone})`;
  return `at ${new Date(at).toISOString().replace('.000Z', 'Z')}`;
}

/**
 * A statement figure against the ledger's, at the statement's precision: the decimal places it is
 * written with (or `places`), the ledger's balance rounded half to even to them. A figure written
 * without decimal places is compared exactly unless `places` says 0: a whole number is more often a
 * round figure typed than a balance rounded to whole units, and rounding would hide a difference.
 */
function compareAtPlaces(statement: string, ledger: Big, asked: number | undefined) {
  const written = placesOf(statement);
  const ledgerText = plain(ledger);
  const exact = asked === undefined && written === 0;
  const places = exact ? Math.max(written, placesOf(ledgerText)) : (asked ?? written);
  const rounded = ledger.round(places, Big.roundHalfEven);
  const roundedText = places > 0 ? rounded.toFixed(places) : plain(rounded);
  const difference = plain(new Big(statement).minus(rounded));
  const placesWords = `${places} decimal place${places === 1 ? '' : 's'}`;
  const whose = asked === undefined ? "the statement's" : 'the asked';
  const rule = exact
    ? 'compared exactly: the statement is written without decimal places (give 0 decimal places to compare in whole units)'
    : rounded.eq(ledger)
      ? `compared at ${whose} ${placesWords}; the ledger's ${ledgerText} needs no rounding`
      : `compared at ${whose} ${placesWords}: the ledger's ${ledgerText} rounded half to even is ${roundedText}`;
  return { places, ledger_rounded: roundedText, difference, rule };
}

export function balancesHandlers(ctx: ServiceContext, exceptions: BalanceExceptions): HandlersOf<typeof balancesContract> {
  return {
    'balances-at': ({ wallet_id, at, time_zone }): BalancesAt => {
      const zone = readZone(time_zone);
      const moment = readMoment(at, 'end', zone, 'at');
      return { at: moment, time_zone: zone, ...balancesAt(ctx.db, requireWallet(ctx.db, wallet_id), moment) };
    },
    'balances-period': (input): BalancesPeriod => {
      const zone = readZone(input.time_zone);
      const period = closedPeriod(input);
      const { rows, undated } = sumPeriod(ctx.db, requireWallet(ctx.db, input.wallet_id), period.from, period.to);
      return { ...period, time_zone: zone, rows: rows.map(periodRow), undated };
    },
    'balance-movements': (input): BalanceStatement => {
      const [walletId] = requireWallet(ctx.db, input.wallet_id)!;
      const token = requireToken(ctx.db, input.token_id);
      return statement(ctx.db, walletId!, input.token_id, token.chain_id, closedPeriod(input), input.page, input.page_size);
    },
    'balance-check': (input, meta): BalanceCheck => {
      const [walletId] = requireWallet(ctx.db, input.wallet_id)!;
      const token = requireToken(ctx.db, input.token_id);
      const zone = readZone(input.time_zone);
      const at = readMoment(input.at, 'end', zone, 'at');
      const ledger = balanceOf(ctx.db, walletId!, input.token_id, at);
      const compared = compareAtPlaces(input.statement_balance, ledger, input.places);
      const figures = {
        wallet_id: walletId!,
        chain_id: token.chain_id,
        token_id: input.token_id,
        at,
        ledger_balance: plain(ledger),
        statement_balance: input.statement_balance,
        ...compared,
      };
      const subject = `${walletId}|${input.token_id}|${at}`;
      const when = momentWords(input.at, at, zone);
      if (compared.difference === '0') {
        // An agreeing figure settles the difference an earlier check of the same moment found.
        const reason = `statement ${figures.statement_balance} ${token.symbol} agrees with the ledger ${when}: ${compared.rule}`;
        const settled = exceptions.settle(subject, reason, meta);
        return { ...figures, ticket_id: settled, ticket_status: settled === null ? null : 'Resolved' };
      }
      const rounding = ledger.eq(compared.ledger_rounded)
        ? ''
        : ` (${compared.ledger_rounded} at ${compared.places} places, rounded half to even)`;
      const ticketId = exceptions.raise(
        {
          subject,
          wallet_id: walletId!,
          chain_id: token.chain_id,
          token_id: input.token_id,
          amount: figures.difference,
          desc: `statement ${figures.statement_balance} ${token.symbol}, ledger ${figures.ledger_balance}${rounding}, difference ${figures.difference} ${when}`,
          claimed: JSON.stringify({ ...figures, time_zone: zone, at_text: input.at }),
        },
        meta,
      );
      return { ...figures, ticket_id: ticketId, ticket_status: 'Pending' };
    },
  };
}
