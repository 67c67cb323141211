import { describe, expect, it } from 'vitest';
import { inPeriod, readPeriod } from './period';

describe('periods', () => {
  it('a date is its whole day, both ends inclusive, in the zone given', () => {
    const p = readPeriod({ from: '2026-10-01', to: '2026-10-31' });
    expect(p.from).toBe(Date.UTC(2026, 9, 1));
    expect(p.to).toBe(Date.UTC(2026, 10, 1) - 1);
    expect(inPeriod(p, Date.UTC(2026, 9, 31, 23, 59, 59))).toBe(true);
    expect(inPeriod(p, Date.UTC(2026, 10, 1))).toBe(false);
    expect(inPeriod(p, Date.UTC(2026, 8, 30, 23, 59, 59))).toBe(false);
    // Berlin is UTC+2 until 25 October 2026 and UTC+1 after.
    const berlin = readPeriod({ from: '2026-10-01', to: '2026-10-31', time_zone: 'Europe/Berlin' });
    expect(berlin.from).toBe(Date.UTC(2026, 8, 30, 22));
    expect(berlin.to).toBe(Date.UTC(2026, 9, 31, 23) - 1);
  });

  it('moments keep their zone or take the one given; open ends take everything', () => {
    expect(readPeriod({ from: '2026-10-01T12:00:00Z' }).from).toBe(Date.UTC(2026, 9, 1, 12));
    expect(readPeriod({ from: '2026-10-01 12:00:00', time_zone: 'Asia/Singapore' }).from).toBe(Date.UTC(2026, 9, 1, 4));
    const open = readPeriod({});
    expect(open).toEqual({ from: null, to: null });
    expect(inPeriod(open, 0)).toBe(true);
  });

  it('refuses what it cannot read, naming the field', () => {
    expect(() => readPeriod({ from: '2026-13-01' })).toThrow(/from: "2026-13-01" is not a calendar date/);
    expect(() => readPeriod({ to: 'last week' })).toThrow(/to: "last week" is not a date/);
    expect(() => readPeriod({ from: '2026-10-31', to: '2026-10-01' })).toThrow(/to: 2026-10-01 is before from/);
    expect(() => readPeriod({ from: '2026-10-01', time_zone: 'Mars/Olympus' })).toThrow(/time_zone: unknown time zone/);
  });
});
