import type ExcelJS from 'exceljs';
import { FAILED_FEE_RULE } from '../../../shared/ledger';
import { REPORT_GROUP_LABELS, REPORT_GROUPS, type ReconcileReport, type ReportGroup } from '../../../shared/reports';
import { decimalsFormat, guardText, isoUtc, numberHoldsDecimal, type TableColumn } from './cells';
import { groupColumns, groupWords } from './group-columns';
import { addTableSheet, BOLD, newWorkbook, xlsxBuffer } from './sheets';

/*
 * The auditor's workbook: a Summary sheet first (which books file, its SHA-256, the period and
 * zone, the tolerances, the counts, the rejected rows, the exceptions by status, the balances, who
 * ran it and when, and the sign-off), then one sheet per group in REPORT_GROUPS order, named by
 * its label, and a sheet of the books rows that could not be read. Amounts are numbers a
 * spreadsheet adds up, with their exact text beside them where a number cannot hold every digit.
 */

export const APP_NAME = 'NPS Reconcile';

const THIN: Partial<ExcelJS.Border> = { style: 'thin' };
const SECTION_FONT: Partial<ExcelJS.Font> = { bold: true, size: 12 };

/** A sheet's name: Excel allows 31 characters and no []:*?/\ in it. */
const sheetName = (words: string): string => words.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31);
const sheetNameOf = (group: ReportGroup): string => sheetName(groupWords(group));
const REJECTED_SHEET = 'Rejected books rows';

/** The line under a list cut at a limit. */
const cutNote = (shown: number, total: number, what: string): string =>
  `Showing the first ${shown.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} ${what}; the counts on the Summary sheet are whole.`;

const periodText = (ms: number | null, open: string): string => (ms === null ? open : isoUtc(ms));

const TIME_WORDS = { Created: 'created', Confirmed: 'confirmed', Completed: 'completed' } as const;

/** Fills the Summary sheet top to bottom, one labelled line at a time. */
class SummaryWriter {
  private row = 1;
  constructor(private readonly ws: ExcelJS.Worksheet) {}

  title(text: string): void {
    const cell = this.ws.getCell(this.row, 1);
    cell.value = guardText(text);
    cell.font = { bold: true, size: 16 };
    this.row += 2;
  }

  section(text: string): void {
    this.ws.getCell(this.row, 1).value = text;
    this.ws.getCell(this.row, 1).font = SECTION_FONT;
    this.row++;
  }

  /** A label and its value(s): text as text, counts as numbers. */
  line(label: string, ...values: (string | number)[]): ExcelJS.Row {
    const r = this.ws.getRow(this.row++);
    r.getCell(1).value = label;
    r.getCell(1).font = BOLD;
    values.forEach((v, i) => {
      const cell = r.getCell(i + 2);
      cell.value = typeof v === 'number' ? v : guardText(v);
      if (typeof v === 'string') cell.numFmt = '@';
      cell.alignment = { horizontal: typeof v === 'number' ? 'right' : 'left', vertical: 'top', wrapText: true };
    });
    return r;
  }

  /** A row of column headers (bold, underlined). */
  header(...labels: string[]): void {
    const r = this.ws.getRow(this.row++);
    labels.forEach((l, i) => {
      const cell = r.getCell(i + 1);
      cell.value = l;
      cell.font = BOLD;
      cell.border = { bottom: THIN };
    });
  }

  /** A table row: text cells, then amounts as numbers in `format`, then the exact text of those a number cannot hold. */
  tableRow(texts: string[], amounts: string[], format: string | undefined, exact: boolean): void {
    const r = this.ws.getRow(this.row++);
    texts.forEach((v, i) => {
      const cell = r.getCell(i + 1);
      cell.value = guardText(v);
      cell.numFmt = '@';
    });
    amounts.forEach((v, i) => {
      const cell = r.getCell(texts.length + i + 1);
      cell.value = Number(v);
      if (format !== undefined) cell.numFmt = format;
      if (!exact) return;
      const text = r.getCell(texts.length + amounts.length + i + 1);
      text.value = numberHoldsDecimal(v) ? null : v;
      text.numFmt = '@';
      text.alignment = { horizontal: 'right' };
    });
  }

  /** A line of explanation under a table. */
  note(text: string): void {
    const cell = this.ws.getCell(this.row++, 1);
    cell.value = text;
    cell.font = { italic: true };
  }

  /** A label and an empty cell with a line under it to sign or date on. */
  signLine(label: string): void {
    const r = this.ws.getRow(this.row);
    r.height = 30;
    r.getCell(1).value = label;
    r.getCell(1).font = BOLD;
    r.getCell(1).alignment = { vertical: 'bottom' };
    for (const col of [2, 3]) r.getCell(col).border = { bottom: THIN };
    this.row += 1;
  }

  skip(n = 1): void {
    this.row += n;
  }
}

function writeSummary(ws: ExcelJS.Worksheet, report: ReconcileReport): void {
  ws.columns = [30, 40, 16, 16, 22, 22, 22, 22, 22, 30, 30, 30, 30, 30].map((width) => ({ width }));
  const s = new SummaryWriter(ws);
  s.title(report.title);
  const file = report.books_file;
  s.line('Books file', file?.name ?? report.books);
  if (file) {
    s.line('Books file SHA-256', file.sha256);
    if (file.sha256_of === 'text')
      s.note('Of the text the window sent, as UTF-8: the file’s own SHA-256 when the file is UTF-8 without a byte-order mark.');
  }
  if (file && report.books && report.books !== file.name) s.line('Run named', report.books);
  s.line('Run', report.run_id);
  s.line('Period from (UTC)', periodText(report.period_from, 'the first record'));
  s.line('Period to (UTC)', periodText(report.period_to, 'the last record'));
  s.line('Time zone', report.time_zone);
  s.line(
    'Wallets',
    report.wallets.length ? report.wallets.map((w) => `${w.name || '(unnamed)'} (${w.wallet_id})`).join('\n') : 'All wallets',
  );
  s.skip();

  s.section('Tolerances');
  s.line('Amount tolerance', report.tolerances.amount_delta);
  s.note('Amount, fee and amount after fee agree when they differ by no more than this.');
  s.line('Time tolerance (seconds)', report.tolerances.time_delta);
  s.line('Time compared with', `the ledger's ${TIME_WORDS[report.tolerances.time_type]} time (${report.tolerances.time_type})`);
  s.skip();

  s.section('Results');
  for (const g of REPORT_GROUPS) s.line(REPORT_GROUP_LABELS[g], report.summary[g]);
  s.line('Claims read', report.claims);
  s.line('Rows rejected', report.rejected_rows);
  if (report.rejected_rows > 0) s.note(`The books rows that could not be read, with their reasons: the sheet "${REJECTED_SHEET}".`);
  s.skip();

  s.section('Exceptions');
  s.line('Open exceptions', report.open_exceptions);
  s.line('Resolved', report.exceptions.resolved);
  s.line('Dismissed', report.exceptions.dismissed);
  s.note('As they stood when this report was made; each group sheet gives every exception’s status, who settled it, when and why.');
  s.skip();

  s.section('Balances');
  if (report.balances.length === 0) s.line('No balances in this report');
  else {
    const amountOf = (b: ReconcileReport['balances'][number]) => [b.opening, b.inflow, b.outflow, b.fees, b.closing];
    const exact = report.balances.some((b) => amountOf(b).some((v) => !numberHoldsDecimal(v)));
    const heads = ['Opening', 'In', 'Out', 'Fees', 'Closing'];
    s.header('Wallet', 'Wallet ID', 'Chain', 'Token', ...heads, ...(exact ? heads.map((h) => `${h}, exact`) : []));
    for (const b of report.balances)
      s.tableRow(
        [b.wallet_name, b.wallet_id, b.chain_id, b.token_id],
        amountOf(b),
        decimalsFormat(report.token_decimals[b.token_id]),
        exact,
      );
    s.note(`Closing = opening + in − out − fees, as the Balances screen counts: ${FAILED_FEE_RULE}.`);
    if (exact) s.note('Where a number cannot hold every digit (Excel keeps 15), the exact figure is in the column headed "exact".');
  }
  s.skip();

  s.line('Run by', report.run_by);
  s.line('Run at (UTC)', isoUtc(report.run_at));
  s.line('Generated by', report.generated_by);
  s.line('Generated at (UTC)', isoUtc(report.generated_at));
  s.skip();

  s.section('Sign-off');
  s.signLine('Prepared by');
  s.signLine('Date');
  s.skip();
  s.signLine('Reviewed by');
  s.signLine('Date');
}

type Rejected = ReconcileReport['rejected'][number];
const REJECTED_COLUMNS: TableColumn<Rejected>[] = [
  { key: 'row', header: 'Books row', width: 10, kind: 'count', value: (r) => r.row },
  { key: 'field', header: 'Column', width: 28, kind: 'text', value: (r) => r.field },
  { key: 'reason', header: 'Reason', width: 100, kind: 'text', value: (r) => r.reason },
];

/** The report as an XLSX workbook: Summary, one sheet per group, then the rejected books rows. */
export async function writeReportXlsx(report: ReconcileReport): Promise<Buffer> {
  const wb = newWorkbook(report.generated_by || APP_NAME, new Date(report.generated_at));
  wb.title = report.title;
  wb.subject = report.books_file?.name ?? report.books;
  wb.description = `${APP_NAME}: two-way reconciliation report of run ${report.run_id}`;
  writeSummary(wb.addWorksheet('Summary'), report);
  const columns = groupColumns(report);
  for (const g of REPORT_GROUPS) {
    const items = report.groups[g];
    const cut = items.length < report.summary[g] ? cutNote(items.length, report.summary[g], 'items') : undefined;
    addTableSheet(wb, sheetNameOf(g), columns, items, cut);
  }
  const cut =
    report.rejected.length < report.rejected_rows ? cutNote(report.rejected.length, report.rejected_rows, 'rejected rows') : undefined;
  addTableSheet(wb, sheetName(REJECTED_SHEET), REJECTED_COLUMNS, report.rejected, cut);
  return xlsxBuffer(wb);
}
