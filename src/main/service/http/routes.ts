import type { z } from 'zod';
import { AddressVerifyRequest, AddressVerifyResult } from '../../../shared/address';
import { ChainListQuery, ChainPage, TokenListQuery, TokenPage } from '../../../shared/catalogue';
import type { HandlerName } from '../../../shared/contract';
import { ErrorCodes, type ErrorCode } from '../../../shared/errors';

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
  /** Schema of `data` on success. */
  response: z.ZodType;
  handler: HandlerName;
  /** Builds the handler's input from the parsed query and body; default: the one that is present. */
  toInput?: (query: unknown, body: unknown) => unknown;
  /** Failure codes this endpoint can answer with, beyond the ones every endpoint has. */
  errors: ErrorCode[];
}

export const COMMON_ERRORS: ErrorCode[] = [ErrorCodes.INVALID_PARAM, ErrorCodes.NOT_FOUND, ErrorCodes.RATE_LIMITED, ErrorCodes.INTERNAL];
export const BODY_ERRORS: ErrorCode[] = [ErrorCodes.INVALID_JSON, ErrorCodes.BODY_TOO_LARGE, ErrorCodes.UNSUPPORTED_MEDIA_TYPE];
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
    errors: [...BODY_ERRORS, ErrorCodes.UNKNOWN_CHAIN, ErrorCodes.CHAIN_NOT_VERIFIABLE],
  },
];
