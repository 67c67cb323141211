import type ExcelJS from 'exceljs';
import { lazy } from '../lazy';
import { PassThrough } from 'node:stream';
import { guardText, type TableColumn } from './cells';

/** exceljs, loaded with the first workbook (lazy.ts). */
const excel = lazy<typeof ExcelJS>('exceljs');

/*
 * The XLSX pieces every file of the service shares: a workbook with its document properties, and a
 * table sheet (a frozen header with an auto-filter over the columns, widths that fit the values).
 * An `amount` column goes in as text exactly as its decimal strings: Excel keeps 15 significant
 * digits of a number, so an 18-decimal amount written as one would be rounded. A `decimal` column
 * goes in as numbers, for a sheet meant to be summed; its table then carries the exact text beside
 * it wherever a number cannot hold every digit (reports/group-columns.ts).
 */

export const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const CSV_MIME = 'text/csv;charset=utf-8';

const TEXT_FORMAT = '@';
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;
const LINK_FONT: Partial<ExcelJS.Font> = { color: { argb: 'FF0B57D0' }, underline: true };
export const BOLD: Partial<ExcelJS.Font> = { bold: true };

export function newWorkbook(creator: string, created: Date): ExcelJS.Workbook {
  const wb = new (excel().Workbook)();
  wb.creator = creator;
  wb.lastModifiedBy = creator;
  wb.created = created;
  wb.modified = created;
  return wb;
}

/** Write one cell of a table: counts as numbers, amounts and every other text as text, links as links. */
function putCell<T>(cell: ExcelJS.Cell, column: TableColumn<T>, row: T): void {
  const v = column.value(row);
  if (v === '') return;
  if (typeof v === 'number') {
    cell.value = v;
    return;
  }
  if (column.kind === 'decimal' && PLAIN_NUMBER.test(v)) {
    // A number a spreadsheet adds up; where it cannot hold every digit, the column beside it has the exact text.
    cell.value = Number(v);
    const format = column.format?.(row);
    if (format !== undefined) cell.numFmt = format;
    return;
  }
  if (column.kind === 'link' && /^https?:\/\//i.test(v)) {
    cell.value = { text: v, hyperlink: v };
    cell.font = LINK_FONT;
    return;
  }
  cell.value = guardText(v);
}

/** A column's cells are text (never read as a number or date), amounts right-aligned: set once on the column, every cell takes it. */
const columnStyle = (kind: TableColumn<unknown>['kind']): Partial<ExcelJS.Style> =>
  kind === 'count' || kind === 'link' || kind === 'decimal'
    ? {}
    : { numFmt: TEXT_FORMAT, ...(kind === 'amount' ? { alignment: { horizontal: 'right' as const } } : {}) };

/** A sheet of rows under a frozen, filterable header; `more` adds a closing line (a list cut at a limit). */
export function addTableSheet<T>(
  wb: ExcelJS.Workbook,
  name: string,
  columns: readonly TableColumn<T>[],
  rows: Iterable<T>,
  more?: string,
): ExcelJS.Worksheet {
  const ws = wb.addWorksheet(name, { views: [{ state: 'frozen', xSplit: 0, ySplit: 1 }] });
  ws.columns = columns.map((c) => ({ key: c.key, width: c.width, style: columnStyle(c.kind) }));
  const head = ws.getRow(1);
  columns.forEach((c, i) => {
    const cell = head.getCell(i + 1);
    cell.value = c.header;
    cell.font = BOLD;
  });
  head.commit();
  let count = 0;
  for (const row of rows) {
    const line = ws.getRow(count + 2);
    columns.forEach((c, i) => putCell(line.getCell(i + 1), c, row));
    // Streamed (streamedXlsx), a committed row is written out and let go; in a workbook in memory this does nothing.
    line.commit();
    count++;
  }
  ws.autoFilter = { from: { row: 1, column: 1 }, to: { row: Math.max(1, count + 1), column: columns.length } };
  if (more !== undefined) {
    const line = ws.getRow(count + 3);
    line.getCell(1).value = more;
    line.getCell(1).font = { italic: true };
    line.commit();
  }
  (ws as ExcelJS.Worksheet & { commit?: () => void }).commit?.();
  return ws;
}

export async function xlsxBuffer(wb: ExcelJS.Workbook): Promise<Buffer> {
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/**
 * A workbook written row by row as it is filled (exceljs' streaming writer, no shared strings):
 * a large export holds its zipped bytes, not every cell as an object (a workbook in memory took
 * gigabytes for a hundred thousand records).
 */
export async function streamedXlsx(creator: string, created: Date, fill: (wb: ExcelJS.Workbook) => void): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    out.on('end', resolve);
    out.on('error', reject);
  });
  const wb = new (excel().stream.xlsx.WorkbookWriter)({ stream: out, useStyles: true, useSharedStrings: false });
  wb.creator = creator;
  wb.lastModifiedBy = creator;
  wb.created = created;
  wb.modified = created;
  fill(wb as unknown as ExcelJS.Workbook);
  await wb.commit();
  await done;
  return Buffer.concat(chunks);
}
