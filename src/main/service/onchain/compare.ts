import Big from 'big.js';
import type { LedgerRecord, LedgerStatus } from '../../../shared/ledger';
import type { OnchainField, OnchainOutcome } from '../../../shared/onchain';
import type { TxFacts } from './reader';

/*
 * One ledger record against what the chain's node says of its hash: pure rules, no node, no store.
 *
 * - The node has never seen the hash: not_found.
 * - It is in no block yet, or in one with fewer confirmations than the chain's confirming_threshold
 *   (on TRON also until the solidity node has it): pending; its block may still leave the chain.
 * - Otherwise each field the ledger records is compared with the chain's, by the record's movement
 *   (ledger.ts, LedgerRecord.movement): the native transfer (the transaction's value, recipient and
 *   fee), an internal transfer (a call with value inside it, from the node's trace) or a token
 *   transfer (a Transfer event of the token's contract). A movement is found by what it moved, not
 *   by its position: the same amount to the same address is the same transfer.
 * - status: the chain's outcome of a final transaction is Completed or Failed, and the ledger must
 *   say the same (a ledger still saying Pending or Confirming of a final transaction differs).
 * - fee: only the native transfer of a withdrawal whose fee is the network's (the record has no
 *   fee_ratio or fee_fixed: the service's own fee is not the gas).
 * Amounts compare exactly, as decimals in the token's units.
 */

export interface TokenView {
  token_id: string;
  symbol: string;
  decimal: number;
  /** '' for the chain's coin. */
  contract: string;
}

export interface Judged {
  outcome: OnchainOutcome;
  fields: OnchainField[];
  reason: string;
  chain: Record<string, string>;
  confirmations: number | null;
  block_number: string | null;
}

export interface JudgeContext {
  family: 'ETH' | 'TRON';
  chainId: string;
  token: TokenView;
  native: TokenView;
  threshold: number;
  head: bigint;
  /** An address as the family compares them (null: not one). */
  address: (text: string) => string | null;
}

/** An integer amount of the smallest unit as a plain decimal in whole units, exactly. */
export function units(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

const sameAmount = (ledger: string, chain: string): boolean => {
  try {
    return new Big(ledger).eq(new Big(chain));
  } catch {
    return false;
  }
};

const TOKEN_MOVEMENT = 1_000_000;

type Kind = 'native' | 'internal' | 'token';

function kindOf(rec: LedgerRecord, token: TokenView): Kind {
  if (token.contract !== '') return 'token';
  return rec.movement >= 1 && rec.movement < TOKEN_MOVEMENT ? 'internal' : 'native';
}

interface Candidate {
  to: string;
  value: bigint;
  contract?: string;
  failed?: boolean;
}

/** The candidate that agrees, else the one that agrees on the recipient (the amount differs), else on the amount, else the first. */
function pick(cands: Candidate[], amount: (c: Candidate) => boolean, to: (c: Candidate) => boolean): Candidate | undefined {
  return cands.find((c) => amount(c) && to(c)) ?? cands.find((c) => to(c)) ?? cands.find((c) => amount(c)) ?? cands[0];
}

export function judge(rec: LedgerRecord, facts: TxFacts | null, x: JudgeContext): Judged {
  const none = { fields: [] as OnchainField[], chain: {} as Record<string, string> };
  if (!facts) {
    return {
      ...none,
      outcome: 'not_found',
      reason: `${x.chainId}'s node has no transaction ${rec.hash}`,
      confirmations: null,
      block_number: null,
    };
  }
  if (facts.block === null) {
    return {
      ...none,
      outcome: 'pending',
      reason: `the transaction waits to be included in a block (0 of the ${x.threshold} confirmations ${x.chainId} needs)`,
      confirmations: 0,
      block_number: null,
    };
  }
  const confirmations = x.head >= facts.block ? Number(x.head - facts.block + 1n) : 0;
  const block_number = facts.block.toString();
  if (confirmations < x.threshold || (x.family === 'TRON' && !facts.solidified)) {
    const short = confirmations < x.threshold;
    const unsolid = x.family === 'TRON' && !facts.solidified;
    return {
      ...none,
      outcome: 'pending',
      reason: [
        short
          ? `${confirmations} of the ${x.threshold} confirmations ${x.chainId} needs (block ${block_number})`
          : `in block ${block_number}`,
        unsolid ? 'not yet final on the solidity node' : '',
      ]
        .filter(Boolean)
        .join('; '),
      confirmations,
      block_number,
    };
  }

  const kind = kindOf(rec, x.token);
  const recTo = rec.to === '' ? null : (x.address(rec.to) ?? rec.to);
  const toAgrees = (c: Candidate) => recTo === null || c.to === recTo;
  const fields: OnchainField[] = [];
  const chain: Record<string, string> = {};
  const said: string[] = [];
  const differs = (field: OnchainField, chainValue: string, ledgerValue: string) => {
    fields.push(field);
    said.push(`${field}: the chain ${chainValue || '(none)'}, the ledger ${ledgerValue || '(none)'}`);
  };
  const status = (ok: boolean) => {
    const chainStatus: LedgerStatus = ok ? 'Completed' : 'Failed';
    chain.status = chainStatus;
    if (rec.status !== chainStatus) differs('status', chainStatus, rec.status);
  };
  const base = { confirmations, block_number };

  if (kind === 'internal' && typeof facts.internal === 'string') {
    return { ...base, outcome: 'unchecked', fields: [], chain: {}, reason: facts.internal };
  }

  if (kind === 'native') {
    const cands: Candidate[] = [{ to: facts.to, value: facts.value }];
    // A TRON export's TRX row may be a transfer a contract made (internal_transactions): either is the record's movement.
    if (x.family === 'TRON' && Array.isArray(facts.internal)) cands.push(...facts.internal);
    const units_ = (c: Candidate) => units(c.value, x.native.decimal);
    const c = pick(cands, (k) => sameAmount(rec.amount, units_(k)), toAgrees)!;
    chain.amount = units_(c);
    chain.to = c.to;
    if (!sameAmount(rec.amount, chain.amount)) differs('amount', chain.amount, rec.amount);
    if (!toAgrees(c)) differs('to', c.to, rec.to);
    status(facts.success === true && c.failed !== true);
    const feeIsGas = rec.fee !== '' && rec.fee_ratio === '' && rec.fee_fixed === '' && rec.type === 'Withdrawal' && rec.movement === 0;
    if (feeIsGas && facts.fee !== null && c === cands[0]) {
      chain.fee = units(facts.fee, x.native.decimal);
      if (!sameAmount(rec.fee, chain.fee)) differs('fee', chain.fee, rec.fee);
    }
  } else if (kind === 'internal') {
    const list = facts.internal as Candidate[];
    const units_ = (c: Candidate) => units(c.value, x.native.decimal);
    const c = pick(list, (k) => sameAmount(rec.amount, units_(k)), toAgrees);
    if (!c) {
      differs('amount', '', rec.amount);
      said[said.length - 1] =
        `amount: the transaction moves no ${x.native.symbol} inside it (no internal transfer), the ledger ${rec.amount}`;
      status(facts.success === true);
    } else {
      chain.amount = units_(c);
      chain.to = c.to;
      if (!sameAmount(rec.amount, chain.amount)) differs('amount', chain.amount, rec.amount);
      if (!toAgrees(c)) differs('to', c.to, rec.to);
      status(facts.success === true && c.failed !== true);
    }
  } else {
    const contract = x.address(x.token.contract) ?? x.token.contract;
    const scaled = (c: Candidate) => units(c.value, x.token.decimal);
    const own = facts.transfers.filter((t) => t.contract === contract);
    if (facts.success !== true && own.length === 0) {
      // A failed transaction leaves no Transfer event: only its outcome can be compared.
      status(false);
      if (fields.length === 0)
        said.push(`the transaction failed on chain, as the ledger says (a failed transfer leaves no event to compare)`);
    } else if (own.length === 0) {
      const other = pick(facts.transfers, (k) => sameAmount(rec.amount, scaled(k)), toAgrees);
      chain.token = other && sameAmount(rec.amount, scaled(other)) && toAgrees(other) ? (other.contract ?? '') : '';
      fields.push('token');
      said.push(
        chain.token
          ? `token: the chain moved this amount to this address in the token of contract ${chain.token}, the ledger says ${x.token.token_id} (${contract})`
          : `token: the transaction has no Transfer event of ${x.token.token_id}'s contract ${contract}`,
      );
      status(facts.success === true);
    } else {
      const c = pick(own, (k) => sameAmount(rec.amount, scaled(k)), toAgrees)!;
      chain.amount = scaled(c);
      chain.to = c.to;
      chain.token = c.contract ?? contract;
      if (!sameAmount(rec.amount, chain.amount)) differs('amount', chain.amount, rec.amount);
      if (!toAgrees(c)) differs('to', c.to, rec.to);
      status(facts.success === true);
    }
  }
  return {
    ...base,
    outcome: fields.length ? 'differs' : 'agrees',
    fields,
    chain,
    reason: fields.length
      ? said.join('; ')
      : said.length
        ? said.join('; ')
        : `agrees (${confirmations} confirmations, block ${block_number})`,
  };
}
