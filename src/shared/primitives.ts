import { z } from 'zod';

/** Marks a field the source description does not have, after its own (openapi.json says so). */
export const addition = (description: string) => ({
  description: `Addition (not in the source description): ${description}`,
  'x-addition': true,
});

/** UUID-shaped: 8-4-4-4-12 hex digits, any version, any case. */
export const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const Uuid = z.string({ error: 'must be a string' }).regex(UUID_RE, { error: 'must be UUID-shaped (8-4-4-4-12 hex digits)' });

/** A plain decimal string: optional minus, digits, optional fraction. No exponent, no spaces. */
const DECIMAL_RE = /^-?\d+(\.\d+)?$/;
export const DecimalString = z.string().regex(DECIMAL_RE, { error: 'must be a decimal number such as 12.5' });
export type DecimalString = z.infer<typeof DecimalString>;

/**
 * A JSON number read without passing through binary floating point: the JSON body parser
 * hands numbers over as objects carrying their source text (lossless-json's LosslessNumber).
 */
export interface ExactNumber {
  isLosslessNumber: true;
  value: string;
}
export const isExactNumber = (v: unknown): v is ExactNumber =>
  typeof v === 'object' && v !== null && (v as ExactNumber).isLosslessNumber === true && typeof (v as ExactNumber).value === 'string';

const JSON_NUMBER_RE = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** Text of a number given as a JSON number (exact or plain) or a numeric string; undefined when it is neither. */
export function numberText(v: unknown): string | undefined {
  if (isExactNumber(v)) return v.value;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : undefined;
  if (typeof v === 'string' && JSON_NUMBER_RE.test(v)) return v;
  return undefined;
}

/** A decimal already in the form toPlainDecimal gives. */
export const PLAIN_DECIMAL = /^(?:-?(?:[1-9]\d*(?:\.\d*[1-9])?|0\.\d*[1-9])|0)$/;

/**
 * Normalise a number's text (possibly in scientific notation) to a plain decimal string, exactly:
 * digits are moved, never rounded. "1.5E-7" -> "0.00000015", "1e3" -> "1000", "-0.0" -> "0".
 */
export function toPlainDecimal(text: string): string | undefined {
  // Already plain (no leading or trailing zeros, no exponent): as it is, without taking it apart.
  if (PLAIN_DECIMAL.test(text)) return text;
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m) return undefined;
  const [, sign, intPart = '', fracPart = '', expPart] = m;
  if (intPart === '' && fracPart === '') return undefined;
  const exp = expPart === undefined ? 0 : Number(expPart);
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 1000) return undefined;
  let digits = intPart + fracPart;
  let point = intPart.length + exp;
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  } else if (point > digits.length) {
    digits = digits + '0'.repeat(point - digits.length);
  }
  const whole = digits.slice(0, point).replace(/^0+/, '') || '0';
  const frac = digits.slice(point).replace(/0+$/, '');
  const out = frac ? `${whole}.${frac}` : whole;
  return sign === '-' && out !== '0' ? `-${out}` : out;
}

/** Amount given as a JSON number or a decimal string; parsed to a plain decimal string. */
export const Amount = z
  .unknown()
  .transform((v, ctx) => {
    const text = numberText(v);
    const plain = text === undefined ? undefined : toPlainDecimal(text);
    if (plain === undefined) {
      ctx.addIssue({ code: 'custom', message: 'must be a number or a decimal string' });
      return z.NEVER;
    }
    return plain;
  })
  .meta({ type: ['number', 'string'], description: 'A decimal amount, as a JSON number or a decimal string; compared exactly.' });

/** An integer given as a JSON number (or, from a query string or IPC, its decimal text / a JS number). */
export function intField(opts: { min?: number; max?: number; description?: string } = {}) {
  const { min, max } = opts;
  const range =
    min !== undefined && max !== undefined ? `an integer from ${min} to ${max}` : min !== undefined ? `an integer >= ${min}` : 'an integer';
  return z
    .unknown()
    .transform((v, ctx) => {
      const text = isExactNumber(v) ? v.value : typeof v === 'number' ? String(v) : undefined;
      const n = text !== undefined && /^-?\d+$/.test(text) ? Number(text) : NaN;
      if (!Number.isSafeInteger(n) || (min !== undefined && n < min) || (max !== undefined && n > max)) {
        ctx.addIssue({ code: 'custom', message: `must be ${range}` });
        return z.NEVER;
      }
      return n;
    })
    .meta({
      type: 'integer',
      ...(min !== undefined ? { minimum: min } : {}),
      ...(max !== undefined ? { maximum: max } : {}),
      ...(opts.description ? { description: opts.description } : {}),
    });
}

/**
 * An integer carried in a query string ("2"), or a number over IPC. Without a `max`, the largest
 * integer a double holds exactly (2^53 - 1) is the bound, said as such: a larger one cannot be told
 * from its neighbours.
 */
export function queryInt(opts: { min: number; max?: number; default: number; description?: string }) {
  const max = opts.max ?? Number.MAX_SAFE_INTEGER;
  const range = `an integer from ${opts.min} to ${max}`;
  return z
    .unknown()
    .transform((v, ctx) => {
      const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
      if (!Number.isSafeInteger(n) || n < opts.min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be ${range}` });
        return z.NEVER;
      }
      return n;
    })
    .meta({
      type: 'integer',
      minimum: opts.min,
      maximum: max,
      ...(opts.description ? { description: opts.description } : {}),
    })
    .default(opts.default);
}

export const requiredString = (what = 'a string') =>
  z.string({ error: (iss) => (iss.input === undefined ? 'is required' : `must be ${what}`) });

export const PageQuery = {
  page: queryInt({ min: 1, default: 1, description: '1-based page number' }),
  page_size: queryInt({ min: 1, max: 100, default: 20, description: 'items per page' }),
};

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    list: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    page_size: z.number().int(),
  });
}
export interface Page<T> {
  list: T[];
  total: number;
  page: number;
  page_size: number;
}
