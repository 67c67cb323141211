import { FLAG_FIELDS, IDENTIFIER_FIELDS, type BooksPreviewRow, type BooksReadAs, type VerifyField } from '../../../../shared/reconcile';
import { Spinner } from '../../components/ui';
import { shorten } from '../../lib/format';
import { rawCellOf } from './claims';
import { useRunWizard } from './store';

const FIELDS: VerifyField[] = [...IDENTIFIER_FIELDS, ...FLAG_FIELDS];

/**
 * The first rows of the books as the mapping reads them, before anything runs: each row's claim
 * (the books' cell beneath the value read from it where the two differ) or why it cannot be one.
 * Updated as the mapping changes.
 */
export function BooksPreviewTable() {
  const w = useRunWizard();
  const p = w.preview;
  const shown = FIELDS.filter((f) => p?.rows.some((r) => r.claim?.[f] !== undefined));
  const errors = p?.rows.filter((r) => r.error).length ?? 0;
  return (
    <section className="subsection books-preview" aria-labelledby="books-preview-title" aria-busy={w.previewing}>
      <div className="subsection-head">
        <h3 id="books-preview-title">Preview: the first rows as claims</h3>
        <span className="muted small" aria-live="polite">
          {w.previewing ? (
            <>
              <Spinner /> reading…
            </>
          ) : p ? (
            `${p.rows.length - errors} of ${p.rows.length} rows read${errors ? `, ${errors} with an error` : ''}${readAsText(p.read_as)}`
          ) : (
            ''
          )}
        </span>
      </div>
      {p && <ReadAsNotes readAs={p.read_as} />}
      {w.previewError && <p className="error-text">{w.previewError}</p>}
      {p?.problems.map((x) => (
        <p key={x.field} className="error-text">
          <span className="mono">{x.field}</span>: {x.reason}
        </p>
      ))}
      {p && p.rows.length > 0 && (
        <div className="table-wrap">
          <table className="table preview-table" aria-label="Books preview">
            <thead>
              <tr>
                <th scope="col" className="num">
                  Row
                </th>
                {shown.map((f) => (
                  <th key={f} scope="col" className="mono">
                    {f}
                  </th>
                ))}
                {shown.length === 0 && <th scope="col">Cells</th>}
              </tr>
            </thead>
            <tbody>
              {p.rows.map((r) => (
                <PreviewRow key={r.row} row={r} fields={shown} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function readAsText(readAs: BooksReadAs): string {
  const parts = [];
  if (readAs.decimal_separator) parts.push(readAs.decimal_separator === ',' ? 'decimal comma' : 'decimal point');
  if (readAs.date_order) parts.push(readAs.date_order === 'day_first' ? 'dates day first' : 'dates month first');
  return parts.length ? ` · ${parts.join(', ')}` : '';
}

/** What the file's dates and currency symbols are read as: a day claims the whole day; a symbol is the wallet's token of it. */
function ReadAsNotes({ readAs }: { readAs: BooksReadAs }) {
  const tokens = Object.entries(readAs.tokens);
  if (!readAs.dates_only && tokens.length === 0) return null;
  return (
    <ul className="muted small read-as-notes" aria-label="How the books are read">
      {readAs.dates_only && (
        <li data-testid="books-dates-only">
          The books give dates without a time: each line claims its whole day (in the books' time zone, set beside the dates above), so any
          time of that day agrees.
        </li>
      )}
      {tokens.length > 0 && (
        <li data-testid="books-token-symbols">
          Currencies read as tokens of the wallet&apos;s chains:{' '}
          {tokens.map(([symbol, id], i) => (
            <span key={symbol}>
              {i > 0 && ', '}
              {symbol} → <span className="mono">{id}</span>
            </span>
          ))}
          . A translation of the currency column changes one.
        </li>
      )}
    </ul>
  );
}

function PreviewRow({ row, fields }: { row: BooksPreviewRow; fields: VerifyField[] }) {
  const mapping = useRunWizard((s) => s.mapping);
  const span = Math.max(1, fields.length);
  if (row.error) {
    return (
      <tr className="preview-error">
        <th scope="row" className="num">
          {row.row}
        </th>
        <td colSpan={span}>
          <span className="badge badge-bad">{row.error.column}</span> {row.error.reason}
          {row.error.value !== '' && !row.error.reason.includes(row.error.value) && (
            <span className="muted">
              {' '}
              (cell: <span className="mono">{row.error.value}</span>)
            </span>
          )}
        </td>
      </tr>
    );
  }
  if (!row.claim) {
    return (
      <tr>
        <th scope="row" className="num">
          {row.row}
        </th>
        <td colSpan={span} className="muted mono">
          {Object.values(row.cells).join(' · ')}
        </td>
      </tr>
    );
  }
  return (
    <tr>
      <th scope="row" className="num">
        {row.row}
      </th>
      {fields.map((f) => {
        const value = row.claim?.[f];
        const raw = rawCellOf(mapping, row.cells, f);
        const text = value === undefined ? '' : String(value);
        const long = (f === 'hash' || f === 'transaction_id' || f === 'to') && text.length > 20;
        return (
          <td key={f} className="mono" title={long ? text : undefined}>
            {long ? shorten(text, 10, 6) : text}
            {raw !== undefined && raw !== text && <div className="muted small">{raw === '' ? '(empty)' : raw}</div>}
          </td>
        );
      })}
    </tr>
  );
}
