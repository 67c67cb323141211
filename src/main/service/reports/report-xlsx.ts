import type ExcelJS from 'exceljs';
import { FAILED_FEE_RULE } from '../../../shared/ledger';
import { REPORT_GROUP_LABELS, REPORT_GROUPS, type ReconcileReport, type ReportGroup } from '../../../shared/reports';
import { guardText, isoUtc } from './cells';
import { GROUP_COLUMNS } from './group-columns';
import { addTableSheet, BOLD, newWorkbook, xlsxBuffer } from './sheets';

/*
 * The auditor's workbook: a Summary sheet first (what was reconciled, the counts, the balances, who
 * ran it and when, and the sign-off), then one sheet per group in REPORT_GROUPS order, named by its
 * label.
 */

export const APP_NAME = 'NPS Reconcile';

const THIN: Partial<ExcelJS.Border> = { style: 'thin' };
const SECTION_FONT: Partial<ExcelJS.Font> = { bold: true, size: 12 };

/** The sheet of a group: its label (Excel allows 31 characters and no []:*?/\ in a sheet's name). */
const sheetNameOf = (group: ReportGroup): string => REPORT_GROUP_LABELS[group].replace(/[[\]:*?/\\]/g, ' ').slice(0, 31);

/** The line under a group cut at a limit. */
const cutNote = (shown: number, total: number): string =>
  `Showing the first ${shown.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} items; the counts on the Summary sheet are whole.`;

const periodText = (ms: number | null, open: string): string => (ms === null ? open : isoUtc(ms));

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

  /** A table row whose cells from `firstAmount` on are amounts: text, right-aligned. */
  tableRow(cells: string[], firstAmount: number): void {
    const r = this.ws.getRow(this.row++);
    cells.forEach((v, i) => {
      const cell = r.getCell(i + 1);
      cell.value = guardText(v);
      cell.numFmt = '@';
      if (i >= firstAmount) cell.alignment = { horizontal: 'right' };
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
  ws.columns = [
    { width: 30 },
    { width: 40 },
    { width: 16 },
    { width: 16 },
    { width: 30 },
    { width: 30 },
    { width: 30 },
    { width: 30 },
    { width: 30 },
  ];
  const s = new SummaryWriter(ws);
  s.title(report.title);
  s.line('Books file', report.books);
  s.line('Run', report.run_id);
  s.line('Period from (UTC)', periodText(report.period_from, 'the first record'));
  s.line('Period to (UTC)', periodText(report.period_to, 'the last record'));
  s.line(
    'Wallets',
    report.wallets.length ? report.wallets.map((w) => `${w.name || '(unnamed)'} (${w.wallet_id})`).join('\n') : 'All wallets',
  );
  s.skip();

  s.section('Results');
  for (const g of REPORT_GROUPS) s.line(REPORT_GROUP_LABELS[g], report.summary[g]);
  s.line('Claims read', report.claims);
  s.line('Rows rejected', report.rejected_rows);
  s.line('Open exceptions', report.open_exceptions);
  s.skip();

  s.section('Balances');
  if (report.balances.length === 0) s.line('No balances in this report');
  else {
    s.header('Wallet', 'wallet_id', 'chain_id', 'token_id', 'Opening', 'In', 'Out', 'Fees', 'Closing');
    for (const b of report.balances)
      s.tableRow([b.wallet_name, b.wallet_id, b.chain_id, b.token_id, b.opening, b.inflow, b.outflow, b.fees, b.closing], 4);
    s.note(`Closing = opening + in - out - fees, as the Balances screen counts: ${FAILED_FEE_RULE}.`);
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

/** The report as an XLSX workbook: Summary, then one sheet per group. */
export async function writeReportXlsx(report: ReconcileReport): Promise<Buffer> {
  const wb = newWorkbook(report.generated_by || APP_NAME, new Date(report.generated_at));
  wb.title = report.title;
  wb.subject = report.books;
  wb.description = `${APP_NAME}: two-way reconciliation report of run ${report.run_id}`;
  writeSummary(wb.addWorksheet('Summary'), report);
  for (const g of REPORT_GROUPS) {
    const items = report.groups[g];
    const cut = items.length < report.summary[g] ? cutNote(items.length, report.summary[g]) : undefined;
    addTableSheet(wb, sheetNameOf(g), GROUP_COLUMNS, items, cut);
  }
  return xlsxBuffer(wb);
}
