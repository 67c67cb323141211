import { DateTime, IANAZone } from 'luxon';
import { invalidParam } from '../errors';

/*
 * A period as the user gives it: `from` and `to`, each a date (YYYY-MM-DD, the whole day) or a
 * moment (ISO 8601), read in an IANA time zone when they carry none. Both ends are inclusive, in
 * Unix milliseconds: `from` is the first millisecond of its day, `to` the last of its day (a
 * moment is taken as given). An absent end is open (null).
 */

export interface Period {
  from: number | null;
  to: number | null;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** The zone dates are read in; a name Luxon does not know is an error naming `field`. */
export function readZone(zone: string | undefined, field = 'time_zone'): string {
  const name = zone === undefined || zone.trim() === '' ? 'UTC' : zone.trim();
  if (!IANAZone.isValidZone(name))
    throw invalidParam(field, `unknown time zone ${JSON.stringify(name)} (an IANA name such as UTC or Europe/Berlin)`);
  return name;
}

/**
 * One end of a period, Unix ms: a date means its first millisecond (`start`) or its last
 * (`end`) in `zone`; a moment with a zone keeps it, one without is read in `zone`.
 */
export function readMoment(text: string, edge: 'start' | 'end', zone: string, field: string): number {
  const t = text.trim();
  if (DATE_ONLY.test(t)) {
    const day = DateTime.fromISO(t, { zone });
    if (!day.isValid) throw invalidParam(field, `${JSON.stringify(text)} is not a calendar date`);
    return (edge === 'start' ? day.startOf('day') : day.endOf('day')).toMillis();
  }
  const moment = DateTime.fromISO(t.replace(' ', 'T'), { zone, setZone: false });
  if (!moment.isValid) throw invalidParam(field, `${JSON.stringify(text)} is not a date (YYYY-MM-DD) or an ISO 8601 moment`);
  return moment.toMillis();
}

/** The period of `from` / `to` (either may be absent), checked to run forwards. */
export function readPeriod(input: { from?: string; to?: string; time_zone?: string }, prefix = ''): Period {
  const zone = readZone(input.time_zone, `${prefix}time_zone`);
  const from = input.from?.trim() ? readMoment(input.from, 'start', zone, `${prefix}from`) : null;
  const to = input.to?.trim() ? readMoment(input.to, 'end', zone, `${prefix}to`) : null;
  if (from !== null && to !== null && from > to) throw invalidParam(`${prefix}to`, `${input.to} is before from (${input.from})`);
  return { from, to };
}

/** True when `ms` falls in the period (both ends inclusive; open ends take everything). */
export const inPeriod = (p: Period, ms: number): boolean => (p.from === null || ms >= p.from) && (p.to === null || ms <= p.to);
