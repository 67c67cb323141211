const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Unix milliseconds as "2026-01-02 03:04:05" in UTC; the screens say UTC in their headers. */
export function formatTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '';
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

export const formatSeconds = (s: number | null | undefined): string => (s === null || s === undefined ? '' : formatTime(s * 1000));

/** "2026-01-02" of a UTC day <-> Unix ms at its start. */
export function dayToMs(day: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const ms = Date.parse(`${day}T00:00:00.000Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

export const formatCount = (n: number): string => n.toLocaleString('en-US');

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

/** 0x1234…cdef: enough to tell values apart in a column; the full value is in the title and the detail. */
export function shorten(value: string | null | undefined, head = 8, tail = 6): string {
  if (!value) return '';
  if (value.length <= head + tail + 1) return value;
  return `${value.slice(0, head)}…${tail > 0 ? value.slice(-tail) : ''}`;
}

/** Split a decimal string at its point, so a column can line the points up. Digits are never changed. */
export function splitAmount(value: string): { int: string; frac: string } {
  const at = value.indexOf('.');
  if (at < 0) return { int: value, frac: '' };
  return { int: value.slice(0, at), frac: value.slice(at) };
}

/**
 * The widest fractional part among a column's amounts, its point included, in characters: each
 * amount's fraction takes this width, so the points of a right-aligned column line up.
 */
export function fractionWidth(values: Iterable<string | null | undefined>): number {
  let widest = 0;
  for (const v of values) if (v) widest = Math.max(widest, splitAmount(v).frac.length);
  return widest;
}

/** Group the integer digits in thousands for reading (1234567.5 -> 1,234,567.5), exactly. */
export function groupThousands(int: string): string {
  const neg = int.startsWith('-');
  const digits = neg ? int.slice(1) : int;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return neg ? `-${grouped}` : grouped;
}

export function relativeTime(ms: number | null | undefined, now = Date.now()): string {
  if (ms === null || ms === undefined) return 'never';
  const s = Math.round((now - ms) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** The previous calendar month (UTC), as YYYY-MM-DD days: the period a month-end close usually covers. */
export function previousMonth(now = new Date()): { from: string; to: string } {
  return monthOf(now.getUTCFullYear(), now.getUTCMonth() - 1);
}

/** A calendar month (month 0 is January; others roll over into the year) as its first and last day. */
function monthOf(year: number, month: number): { from: string; to: string } {
  const first = new Date(Date.UTC(year, month, 1));
  const last = new Date(Date.UTC(year, month + 1, 0));
  return { from: first.toISOString().slice(0, 10), to: last.toISOString().slice(0, 10) };
}

/**
 * The period to propose for the next run of a layout whose last run covered `last`: the month
 * after it when it was a whole calendar month (the next month to close), but never past the
 * previous calendar month (a month still running is not closed); otherwise the previous month.
 */
export function nextPeriod(last: { from?: string; to?: string } | undefined, now = new Date()): { from: string; to: string } {
  const fallback = previousMonth(now);
  const m = /^(\d{4})-(\d{2})-01$/.exec(last?.from ?? '');
  if (!m) return fallback;
  const month = monthOf(Number(m[1]), Number(m[2]) - 1);
  if (month.to !== last?.to) return fallback;
  const next = monthOf(Number(m[1]), Number(m[2]));
  return next.from < fallback.from ? next : fallback;
}
