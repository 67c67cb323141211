import Papa from 'papaparse';
import { REPORT_GROUPS, type ReconcileReport } from '../../../shared/reports';
import { textRow, type TableColumn } from './cells';
import { GROUP_COLUMNS } from './group-columns';

/*
 * CSV: one table, RFC 4180 (papaparse quotes what needs it; CRLF line ends), cells guarded as in
 * the XLSX (cells.ts). A spreadsheet opening a CSV reads an amount as a number and may round it;
 * the XLSX keeps amounts as text, the CSV keeps them as the exact digits for other tools.
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

/** The report's items as one CSV: a `group` column (REPORT_GROUPS' names), then the group sheets' columns. */
export function writeReportCsv(report: ReconcileReport): string {
  const rows = REPORT_GROUPS.flatMap((group) => report.groups[group].map((item) => ({ group, item })));
  const columns = GROUP_COLUMNS.map((c) => ({ ...c, value: (r: (typeof rows)[number]) => c.value(r.item) }));
  return csvOf(columns, rows, [{ header: 'group', value: (r) => r.group }]);
}
