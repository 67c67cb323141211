/** The /nps error table (SPEC.md, "Envelope"): code -> HTTP status and a short name. */
export const ErrorCodes = {
  OK: 0,
  INVALID_JSON: 1001,
  INVALID_PARAM: 1002,
  BODY_TOO_LARGE: 1003,
  UNSUPPORTED_MEDIA_TYPE: 1004,
  NOT_FOUND: 1005,
  AUTH_MISSING: 2001,
  AUTH_UNKNOWN_KEY: 2002,
  AUTH_BAD_NONCE: 2003,
  AUTH_REPLAY: 2004,
  AUTH_BAD_SIGNATURE: 2005,
  AUTH_WALLET_FORBIDDEN: 2006,
  UNKNOWN_CHAIN: 3001,
  UNKNOWN_TOKEN: 3002,
  TICKET_NOT_FOUND: 3003,
  UNKNOWN_WALLET: 3004,
  CHAIN_NOT_VERIFIABLE: 3005,
  BATCH_TOO_LARGE: 4001,
  RATE_LIMITED: 4002,
  INTERNAL: 5000,
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export const httpStatusOf: Record<ErrorCode, number> = {
  0: 200,
  1001: 400,
  1002: 400,
  1003: 413,
  1004: 415,
  1005: 404,
  2001: 401,
  2002: 401,
  2003: 401,
  2004: 401,
  2005: 401,
  2006: 403,
  3001: 404,
  3002: 404,
  3003: 404,
  3004: 404,
  3005: 400,
  4001: 400,
  4002: 429,
  5000: 500,
};

/** A failure with a code from the table and a sentence naming the field or rule at fault. */
export interface ServiceErrorShape {
  code: ErrorCode;
  message: string;
}
