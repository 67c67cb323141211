import type { z } from 'zod';
import { AddressVerifyRequest, AddressVerifyResult } from '../../../shared/address';
import { ChainListQuery, ChainPage, TokenListQuery, TokenPage } from '../../../shared/catalogue';
import type { HandlerName } from '../../../shared/contract';
import { ErrorCodes, type ErrorCode } from '../../../shared/errors';
import { VerifyBody, VerifyQuery, VerifyResults, VerifyResultsA, VerifyResultsB, type VerifyInput } from '../../../shared/reconcile';
import { TicketLookupQuery, TicketPublic } from '../../../shared/tickets';

/**
 * One /nps endpoint: where it lives, what it accepts (validated with these very schemas, and
 * documented from them in openapi.json), and which handler of the map answers it.
 */
export interface NpsRoute {
  method: 'GET' | 'POST';
  url: string;
  summary: string;
  description: string;
  /** Needs a signed request (BIZ-API-KEY, Biz-Api-Nonce, Biz-Api-Signature). */
  signed: boolean;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Schema of `data` on success (openapi.json documents it). */
  response: z.ZodType;
  /** The exact schema the answer to this input is written with, where `response` allows several (the verify shapes); default `response`. */
  responseFor?: (input: unknown) => z.ZodType;
  /**
   * The answer depends only on the query string and the catalogue: the written answer is kept per
   * query and sent again until the catalogue changes (the catalogue is what local tools read most).
   */
  catalogueCache?: true;
  handler: HandlerName;
  /** Counted by admission control, once authenticated, until answered (admission.ts): beyond the bound, 4003 at once. */
  admitted?: true;
  /** Bytes of body it reads at most (checked from Content-Length, and while it arrives): beyond, 1003 (HTTP 413). */
  bodyLimit?: number;
  /** Builds the handler's input from the parsed query and body; default: the one that is present. */
  toInput?: (query: unknown, body: unknown) => unknown;
  /** Failure codes this endpoint can answer with, beyond the ones every endpoint has. */
  errors: ErrorCode[];
}

/** A verification's body: 1,000 claims of every field, with room to spare. */
const VERIFY_BODY_LIMIT = 5 * 1024 * 1024;
/** An address check's body: an address and a chain. */
const ADDRESS_BODY_LIMIT = 16 * 1024;

export const COMMON_ERRORS: ErrorCode[] = [
  ErrorCodes.INVALID_PARAM,
  ErrorCodes.NOT_FOUND,
  ErrorCodes.RATE_LIMITED,
  ErrorCodes.INTERNAL,
  ErrorCodes.STORE_UNAVAILABLE,
];
const BODY_ERRORS: ErrorCode[] = [ErrorCodes.INVALID_JSON, ErrorCodes.BODY_TOO_LARGE, ErrorCodes.UNSUPPORTED_MEDIA_TYPE];
export const AUTH_ERRORS: ErrorCode[] = [
  ErrorCodes.AUTH_MISSING,
  ErrorCodes.AUTH_UNKNOWN_KEY,
  ErrorCodes.AUTH_BAD_NONCE,
  ErrorCodes.AUTH_REPLAY,
  ErrorCodes.AUTH_BAD_SIGNATURE,
];

export const npsRoutes: NpsRoute[] = [
  {
    method: 'GET',
    url: '/nps/chains',
    summary: 'List chains',
    description: 'The chain catalogue, ordered by chain_id, filtered by exact chain_id and chain_identifier.',
    signed: false,
    query: ChainListQuery,
    response: ChainPage,
    catalogueCache: true,
    handler: 'catalogue-chains-list',
    errors: [],
  },
  {
    method: 'GET',
    url: '/nps/tokens',
    summary: 'List tokens',
    description: 'The token catalogue (native coins included), ordered by chain_id then token_id, filtered by exact chain_id and token_id.',
    signed: false,
    query: TokenListQuery,
    response: TokenPage,
    catalogueCache: true,
    handler: 'catalogue-tokens-list',
    errors: [],
  },
  {
    method: 'POST',
    url: '/nps/address/verify',
    summary: 'Check an address',
    description:
      'Whether an address is valid on an EVM chain (EIP-55: single-case hex, or mixed case with a correct checksum) or on TRON (Base58Check T..., or hex 41...). The address is echoed unchanged.',
    signed: false,
    body: AddressVerifyRequest,
    response: AddressVerifyResult,
    handler: 'address-verify',
    bodyLimit: ADDRESS_BODY_LIMIT,
    errors: [...BODY_ERRORS, ErrorCodes.UNKNOWN_CHAIN, ErrorCodes.CHAIN_NOT_VERIFIABLE],
  },
  {
    method: 'POST',
    url: '/nps/bill/verify/txs',
    summary: 'Verify transactions against the ledger',
    description:
      "Checks up to 1000 claimed transactions against the service's records. Each claim is looked up by transaction_id, else hash (with chain_id when given), else request_id, within wallet_id or the wallets the key may use; every identifier given must agree with the record. data[i] answers txs[i]: a flag per compared field (chain_id_match ... time_match, true when not given), result, the record (Shape A under `tx` with Unix-second times; ?shape=B under `data` with ISO 8601 times) and the addition ticket_id, the ticket a mismatch opened or updated. Amounts compare exactly within amount_delta; time within time_delta seconds of the moment time_type names. The call is stored as a verification run.",
    signed: true,
    query: VerifyQuery,
    body: VerifyBody,
    response: VerifyResults,
    responseFor: (input) => ((input as VerifyInput).shape === 'B' ? VerifyResultsB : VerifyResultsA),
    handler: 'reconcile-verify-txs',
    admitted: true,
    bodyLimit: VERIFY_BODY_LIMIT,
    toInput: (query, body) => ({ ...(body as object), shape: (query as { shape: string }).shape }),
    errors: [...BODY_ERRORS, ErrorCodes.AUTH_WALLET_FORBIDDEN, ErrorCodes.UNKNOWN_WALLET, ErrorCodes.BATCH_TOO_LARGE, ErrorCodes.BUSY],
  },
  {
    method: 'GET',
    url: '/nps/ticket',
    summary: 'Look up a ticket',
    description:
      'A ticket a mismatching verification opened: status (Pending, Resolved, Dismissed), abnormals (the false flags in the order chain_id,token_id,to,status,type,amount,fee,amount_actual,time), desc (per field, claimed and recorded), times in Unix seconds. A ticket of another wallet is answered 3003, as a missing one.',
    signed: true,
    query: TicketLookupQuery,
    response: TicketPublic,
    handler: 'ticket-lookup',
    errors: [ErrorCodes.AUTH_WALLET_FORBIDDEN, ErrorCodes.UNKNOWN_WALLET, ErrorCodes.TICKET_NOT_FOUND],
  },
];
