import { describe, expect, it } from 'vitest';
import { fractionWidth, nextPeriod } from './format';

describe('the period proposed for the next run of a layout', () => {
  const now = new Date(Date.UTC(2026, 10, 27, 9)); // 27 November 2026

  it('is the month after the last whole month run, catching up one month at a time', () => {
    expect(nextPeriod({ from: '2026-01-01', to: '2026-01-31' }, now)).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(nextPeriod({ from: '2025-12-01', to: '2025-12-31' }, now)).toEqual({ from: '2026-01-01', to: '2026-01-31' });
  });

  it('is never a month still running: the last month again, or the previous one', () => {
    // October was run: November is not over, so October is proposed again (a second run after corrections).
    expect(nextPeriod({ from: '2026-10-01', to: '2026-10-31' }, now)).toEqual({ from: '2026-10-01', to: '2026-10-31' });
    expect(nextPeriod({ from: '2026-09-01', to: '2026-09-30' }, now)).toEqual({ from: '2026-10-01', to: '2026-10-31' });
  });

  it('is the previous calendar month when the last run was no whole month, or had none', () => {
    const october = { from: '2026-10-01', to: '2026-10-31' };
    expect(nextPeriod(undefined, now)).toEqual(october);
    expect(nextPeriod({}, now)).toEqual(october);
    expect(nextPeriod({ from: '2026-01-01', to: '2026-01-15' }, now)).toEqual(october);
    expect(nextPeriod({ from: '2026-01-05', to: '2026-02-04' }, now)).toEqual(october);
    expect(nextPeriod({ from: '2026-01-01T00:00:00Z', to: '2026-01-31' }, now)).toEqual(october);
  });
});

describe("a column's fraction width, for its decimal points to line up", () => {
  it('is the widest fraction, its point counted; whole numbers and empty cells have none', () => {
    expect(fractionWidth(['18.289182344937695945', '0', '400', '2.5'])).toBe(19);
    expect(fractionWidth(['0', '2,500', '', null, undefined])).toBe(0);
    expect(fractionWidth(['-0.5', '1.25'])).toBe(3);
  });
});
