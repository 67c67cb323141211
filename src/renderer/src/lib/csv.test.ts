import Papa from 'papaparse';
import { expect, test } from 'vitest';
import { toCsv } from './csv';

test('an exported CSV reads back cell for cell; a cell that would start a formula is defused, a negative amount stays a number', () => {
  const rows = [
    ['0xabc', '-12.5', 'said "hello", twice', null, '=HYPERLINK("http://x")'],
    ['line\nbreak', '-x', '+1', { a: 1 }, '@SUM(A1)'],
  ];
  const text = toCsv(['hash', 'amount', 'note', 'empty', 'memo'], rows);
  expect(text.endsWith('\r\n')).toBe(true);
  const back = Papa.parse<string[]>(text.trimEnd(), { newline: '\r\n' }).data;
  expect(back).toEqual([
    ['hash', 'amount', 'note', 'empty', 'memo'],
    ['0xabc', '-12.5', 'said "hello", twice', '', `'=HYPERLINK("http://x")`],
    ['line\nbreak', "'-x", "'+1", '{"a":1}', "'@SUM(A1)"],
  ]);
});
