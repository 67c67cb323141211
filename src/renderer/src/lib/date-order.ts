const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * What each order makes of a date written with the year last whose first two parts could each be
 * the month ("05/03/2022 10:21": 5 March 2022 day first, 3 May 2022 month first), so the date-order
 * question can show the file's own example; undefined for a cell that is no such date.
 */
export function dateOrderReadings(cell: string): { date: string; day_first: string; month_first: string } | undefined {
  const m = /^\s*(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})(?!\d)/.exec(cell);
  if (!m) return undefined;
  const [first, second, year] = [Number(m[1]), Number(m[3]), m[4]!];
  if (first < 1 || second < 1 || first > 12 || second > 12) return undefined;
  return {
    date: `${m[1]}${m[2]}${m[3]}${m[2]}${year}`,
    day_first: `${first} ${MONTHS[second - 1]} ${year}`,
    month_first: `${second} ${MONTHS[first - 1]} ${year}`,
  };
}

/** The first cell of `cells` that reads both ways, with its two readings. */
export function firstDateOrderExample(cells: Iterable<string>): ReturnType<typeof dateOrderReadings> {
  for (const cell of cells) {
    const readings = dateOrderReadings(cell);
    if (readings) return readings;
  }
  return undefined;
}
