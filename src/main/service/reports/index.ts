/* Files made for people: the reconciliation report (XLSX, CSV) and the pieces the ledger's export shares with it. */
export { writeReportCsv, csvOf } from './csv';
export { APP_NAME, writeReportXlsx } from './report-xlsx';
export { isoUtc, textOf, type TableColumn } from './cells';
export { addTableSheet, streamedXlsx, CSV_MIME, XLSX_MIME } from './sheets';
