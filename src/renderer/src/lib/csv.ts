import Papa from 'papaparse';

/**
 * A cell that would start a formula in a spreadsheet (= + @ tab CR, or - not followed by a plain
 * number, so negative amounts stay numbers) gets a leading ' and is never run.
 */
const FORMULA_START = /^(?:[=+@\t\r]|-(?!\d+(?:\.\d+)?$))/;

const cellText = (value: unknown): unknown =>
  value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : value;

/** A CSV file a spreadsheet reads back as written: papaparse quotes what needs it; CRLF lines. */
export function toCsv(header: string[], rows: unknown[][]): string {
  return (
    Papa.unparse({ fields: header, data: rows.map((r) => r.map(cellText)) }, { newline: '\r\n', escapeFormulae: FORMULA_START }) + '\r\n'
  );
}

/** Save text as a file through the browser's (or Electron's) download. */
export function downloadText(fileName: string, text: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
