import Papa from 'papaparse';
import { REPORT_GROUPS, type ReconcileReport, type ReportItem } from '../../../shared/reports';
import { textRow, type TableColumn } from './cells';
import { groupColumns, groupWords } from './group-columns';

/*
 * CSV: one table, RFC 4180 (papaparse quotes what needs it; CRLF line ends), cells guarded as in
 * the XLSX (cells.ts). Amounts are their exact decimal text (a CSV has no numbers, only text a
 * spreadsheet may read and round); the columns are the group sheets', the exact-text columns
 * filled where the XLSX fills them.
 */

/** A table as CSV text: the header, then each row's guarded cells. */
export function csvOf<T>(
  columns: readonly TableColumn<T>[],
  rows: Iterable<T>,
  lead: { header: string; value: (row: T) => string }[] = [],
): string {
  const data: string[][] = [];
  for (const row of rows) data.push([...lead.map((l) => l.value(row)), ...textRow(columns, row)]);
  return Papa.unparse({ fields: [...lead.map((l) => l.header), ...columns.map((c) => c.header)], data }, { newline: '\r\n' }) + '\r\n';
}

/** The Group column's words for the rows of books the run could not read. */
const REJECTED_WORDS = 'Rejected books row';

/**
 * The report as one CSV: a Group column (the group sheets' names), then the group sheets' columns;
 * after the groups, each rejected books row with its reason under Finding.
 */
export function writeReportCsv(report: ReconcileReport): string {
  const rows: { words: string; item: ReportItem }[] = REPORT_GROUPS.flatMap((group) =>
    report.groups[group].map((item) => ({ words: groupWords(group), item })),
  );
  for (const r of report.rejected) {
    const item: ReportItem = {
      books_row: r.row,
      description: '',
      claimed: null,
      record: null,
      note: `Not read: ${r.field}: ${r.reason}`,
      ticket_id: null,
      exception: null,
      explorer_tx_url: '',
    };
    rows.push({ words: REJECTED_WORDS, item });
  }
  // A CSV cell is text: the number formats of the XLSX do not apply.
  const columns = groupColumns(report).map(({ format: _format, ...c }) => ({ ...c, value: (r: (typeof rows)[number]) => c.value(r.item) }));
  return csvOf(columns, rows, [{ header: 'Group', value: (r) => r.words }]);
}
