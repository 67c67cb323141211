import type { ImportReport, Rejection } from '../../../../shared/ledger';
import { DataTable, type SimpleColumn } from '../../components/data-table';
import { Icon } from '../../components/icons';
import { Stat } from '../../components/ui';
import { downloadText, toCsv } from '../../lib/csv';

const rejectionColumns: SimpleColumn<Rejection>[] = [
  { key: 'row', header: 'Row', align: 'right', width: '72px', render: (r) => <span className="num">{r.row_number}</span> },
  { key: 'column', header: 'Column', width: '180px', render: (r) => <span className="mono">{r.column}</span> },
  { key: 'reason', header: 'Reason', render: (r) => r.reason },
];

function exportRejections(fileName: string, rejections: Rejection[]): void {
  const base = fileName.replace(/\.[^.]+$/, '');
  downloadText(
    `${base}-rejected-rows.csv`,
    toCsv(
      ['row_number', 'column', 'reason'],
      rejections.map((r) => [r.row_number, r.column, r.reason]),
    ),
  );
}

export function ImportCounts({
  report,
}: {
  report: Pick<ImportReport, 'rows_total' | 'added' | 'updated' | 'unchanged' | 'rejected' | 'dry_run'>;
}) {
  return (
    <div className="stats">
      <Stat label="rows read" value={report.rows_total} />
      <Stat label={report.dry_run ? 'would be added' : 'added'} value={report.added} tone="good" />
      <Stat label={report.dry_run ? 'would be updated' : 'updated'} value={report.updated} tone="info" />
      <Stat label="unchanged" value={report.unchanged} tone="neutral" />
      <Stat label="rejected" value={report.rejected} tone={report.rejected ? 'bad' : 'neutral'} />
    </div>
  );
}

export function Rejections({ fileName, rejections, limit = 500 }: { fileName: string; rejections: Rejection[]; limit?: number }) {
  if (rejections.length === 0) return null;
  return (
    <section className="subsection">
      <div className="subsection-head">
        <h3>
          Rejected rows <span className="muted">(row numbers count data rows; the header is not a row)</span>
        </h3>
        <button type="button" className="btn btn-small" onClick={() => exportRejections(fileName, rejections)}>
          <Icon name="download" size={14} /> Export rejected rows (CSV)
        </button>
      </div>
      <div className="scroll-box">
        <DataTable
          label="Rejected rows"
          columns={rejectionColumns}
          rows={rejections.slice(0, limit)}
          rowKey={(r) => `${r.row_number}:${r.column}`}
        />
      </div>
      {rejections.length > limit && (
        <p className="muted small">
          Showing the first {limit} of {rejections.length}; the CSV has them all.
        </p>
      )}
    </section>
  );
}
