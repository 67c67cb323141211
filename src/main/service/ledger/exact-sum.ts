import Big from 'big.js';

const PLAIN = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * An exact running sum of decimal strings. The stored amounts are plain decimal strings, so each is read
 * as a BigInt of units at the largest scale seen so far (rescaling the sum when a longer fraction
 * comes), which adds a million amounts several times faster than big.js does; anything else a
 * decimal can be written as (an exponent) goes through big.js first.
 */
export class ExactSum {
  private units = 0n;
  private scale = 0;

  /** Add a decimal; "" or NULL (a fee the ledger does not record) adds nothing. */
  add(text: string | null): void {
    if (text === null || text === '') return;
    const m = PLAIN.exec(text) ?? PLAIN.exec(new Big(text).toFixed());
    if (!m) throw new Error(`not a decimal: ${JSON.stringify(text)}`);
    const frac = m[3] ?? '';
    if (frac.length > this.scale) {
      this.units *= 10n ** BigInt(frac.length - this.scale);
      this.scale = frac.length;
    }
    const value = BigInt(m[2]! + frac.padEnd(this.scale, '0'));
    this.units += m[1] ? -value : value;
  }

  /** The sum as a plain decimal, no trailing zeros in the fraction ("0" for nothing). */
  toString(): string {
    const negative = this.units < 0n;
    const digits = (negative ? -this.units : this.units).toString().padStart(this.scale + 1, '0');
    const int = digits.slice(0, digits.length - this.scale);
    const frac = digits.slice(digits.length - this.scale).replace(/0+$/, '');
    const text = frac ? `${int}.${frac}` : int;
    return negative && text !== '0' ? `-${text}` : text;
  }
}
