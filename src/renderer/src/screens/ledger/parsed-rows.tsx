import type { ParsedRow } from '../../../../shared/ledger';
import { Badge } from '../../components/ui';
import { shorten } from '../../lib/format';

/** Unix milliseconds (as the record's text) in ISO 8601, UTC, to the second. */
function isoTime(ms: string | undefined): string {
  if (!ms || !/^-?\d+$/.test(ms)) return '';
  const d = new Date(Number(ms));
  return Number.isNaN(d.getTime()) ? '' : d.toISOString().replace(/\.000Z$/, 'Z');
}

/** The file's own text beside a value read from it, where it differs from what is shown. */
function FileText({ text, shown }: { text: string; shown: string }) {
  if (text === '' || text === shown) return null;
  return (
    <span className="raw-text" title="The text in the file">
      file: <span className="mono">{text}</span>
    </span>
  );
}

function ReadRow({ row }: { row: ParsedRow }) {
  const v = row.values!;
  const time = isoTime(v.created_at || v.confirmed_at || v.completed_at);
  return (
    <tr>
      <td className="al-right num">{row.row_number}</td>
      <td>{v.type}</td>
      <td>
        <Badge>{v.status ?? ''}</Badge>
      </td>
      <td className="parsed-amount">
        <span className="mono">{v.amount}</span>
        <FileText text={row.raw_amount} shown={v.amount ?? ''} />
      </td>
      <td className="mono">{v.token_id}</td>
      <td className="nowrap">
        {time ? <span className="mono">{time}</span> : <span className="muted">—</span>}
        {/* A Unix timestamp's digits say nothing a reader can check against the date shown: only written dates are beside it. */}
        <FileText text={/^\d+$/.test(row.raw_time) ? '' : row.raw_time} shown={time} />
      </td>
      <td className="mono nowrap" title={v.hash}>
        {v.hash ? shorten(v.hash, 10, 6) : <span className="muted">—</span>}
      </td>
    </tr>
  );
}

function RejectedRow({ row }: { row: ParsedRow }) {
  const p = row.problem!;
  return (
    <tr className="parsed-rejected">
      <td className="al-right num">{row.row_number}</td>
      <td colSpan={6}>
        <span className="badge badge-bad">Rejected</span> <span className="mono">{p.column}</span>
        {p.value !== '' && (
          <>
            {' '}
            <span className="mono parsed-value" title={p.value}>
              {JSON.stringify(p.value)}
            </span>
          </>
        )}
        : {p.reason}
      </td>
    </tr>
  );
}

/** The first rows as the import would read them: the parsed amount and time beside the file's text, or why a row is rejected. */
export function ParsedRows({ rows }: { rows: ParsedRow[] }) {
  if (rows.length === 0) return null;
  const rejected = rows.filter((r) => r.problem !== null).length;
  return (
    <section className="subsection">
      <h3>
        The first {rows.length} row{rows.length === 1 ? '' : 's'} as they will be read{' '}
        <span className="muted">
          ({rejected ? `${rejected} rejected; ` : ''}amounts exactly as stored, amounts and written dates with the file&apos;s text beside
          where it differs)
        </span>
      </h3>
      <div className="scroll-box parsed-box">
        <div className="table-wrap">
          <table className="table parsed" aria-label="First rows as read">
            <thead>
              <tr>
                <th scope="col" className="al-right">
                  Row
                </th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Amount</th>
                <th scope="col">Token</th>
                <th scope="col">Time (UTC)</th>
                <th scope="col">Hash</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (r.values ? <ReadRow key={r.row_number} row={r} /> : <RejectedRow key={r.row_number} row={r} />))}
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}
