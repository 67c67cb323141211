import type { ReactNode } from 'react';
import type { HandlerInput } from '../../../../shared/contract';
import type { ImportReport, Rejection } from '../../../../shared/ledger';
import { DataTable, type SimpleColumn } from '../../components/data-table';
import { Icon } from '../../components/icons';
import { NoValue, Stat } from '../../components/ui';
import { WalletName } from '../../components/wallet-name';
import { downloadText, toCsv } from '../../lib/csv';
import { formatCount } from '../../lib/format';
import { DATE_ORDER_LABEL, SEPARATOR_LABEL } from './choices';
import { IgnoredTokens, UnknownTokens } from './unknown-tokens';
import type { TokenAddResult } from './wizard-store';

const rejectionColumns: SimpleColumn<Rejection>[] = [
  { key: 'row', header: 'Row', align: 'right', width: '72px', render: (r) => <span className="num">{r.row_number}</span> },
  { key: 'column', header: 'Column', width: '160px', render: (r) => <span className="mono">{r.column}</span> },
  {
    key: 'value',
    header: 'Value in the file',
    width: '220px',
    render: (r) =>
      r.value === '' ? (
        <NoValue />
      ) : (
        <span className="mono cell-value" title={r.value}>
          {r.value}
        </span>
      ),
  },
  // A reason may quote a contract address or an ID whole: it wraps anywhere rather than push the table past its frame.
  { key: 'reason', header: 'Reason', render: (r) => <span className="cell-reason">{r.reason}</span> },
];

function exportRejections(fileName: string, rejections: Rejection[]): void {
  const base = fileName.replace(/\.[^.]+$/, '');
  downloadText(
    `${base}-rejected-rows.csv`,
    toCsv(
      ['row_number', 'column', 'value', 'reason'],
      rejections.map((r) => [r.row_number, r.column, r.value, r.reason]),
    ),
  );
}

/** What an import did (or a preview would do): added, updated, unchanged and rejected first, then the rows read. */
export function ImportCounts({
  report,
}: {
  report: Pick<ImportReport, 'rows_total' | 'added' | 'updated' | 'unchanged' | 'rejected' | 'dry_run'> & { ignored?: number };
}) {
  return (
    <div className="stats" data-testid="import-counts">
      <Stat label={report.dry_run ? 'would be added' : 'added'} value={report.added} tone="good" />
      <Stat label={report.dry_run ? 'would be updated' : 'updated'} value={report.updated} tone="info" />
      <Stat label="unchanged" value={report.unchanged} tone="neutral" />
      <Stat label="rejected" value={report.rejected} tone={report.rejected ? 'bad' : 'neutral'} />
      {report.ignored ? <Stat label="ignored (spam)" value={report.ignored} tone="muted" /> : null}
      <Stat label="rows read" value={report.rows_total} tone="neutral" />
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

/** How the file was read where it does not say: one line, for the preview and the report. */
export function ReadAsSummary({ readAs, tokenId }: { readAs: ImportReport['read_as']; tokenId?: string }) {
  const parts: { label: string; value: ReactNode }[] = [];
  if (readAs.chain_id !== null) parts.push({ label: 'chain', value: <span className="mono">{readAs.chain_id}</span> });
  // The token chosen for a file that names none: every row is read as of it.
  if (tokenId !== undefined) parts.push({ label: 'token', value: <span className="mono">{tokenId}</span> });
  if (readAs.decimal_separator !== null) parts.push({ label: 'amounts', value: SEPARATOR_LABEL[readAs.decimal_separator] });
  if (readAs.date_order !== null) parts.push({ label: 'dates', value: DATE_ORDER_LABEL[readAs.date_order] });
  parts.push({ label: 'times without a zone in', value: readAs.time_zone });
  if (readAs.wallet_address !== null)
    parts.push({
      label: 'wallet address',
      value: (
        <span className="mono" title={readAs.wallet_address}>
          {readAs.wallet_address}
        </span>
      ),
    });
  return (
    <p className="read-as-summary" data-testid="read-as-summary">
      <span className="read-as-title">Read as</span>
      {parts.map((p) => (
        <span key={p.label} className="read-as-part">
          <span className="muted">{p.label}</span> {p.value}
        </span>
      ))}
    </p>
  );
}

/** The report of an import that ran: what it did, plainly when nothing; how it read the file; what it left out. */
export function ImportReportView({
  report,
  tokenId,
  onAddTokens,
}: {
  report: ImportReport;
  /** The token stated for a file that names none. */
  tokenId?: string;
  onAddTokens: (t: HandlerInput<'catalogue-token-add'>[]) => Promise<TokenAddResult[]>;
}) {
  const written = report.added + report.updated;
  // An import that left out more rows than it wrote is no plain success: it says so first.
  const mostlyRejected = report.import_id !== null && report.rejected > 0 && report.rejected >= written;
  const rejected = `${formatCount(report.rejected)} row${report.rejected === 1 ? '' : 's'} rejected`;
  return (
    <>
      <div
        className={report.import_id && !mostlyRejected ? 'banner banner-good' : 'banner banner-warn'}
        role="status"
        data-testid="import-result"
      >
        <strong>
          {report.import_id
            ? `Import finished: ${formatCount(written)} record${written === 1 ? '' : 's'} written${report.rejected > 0 ? `, ${rejected}` : ''}`
            : 'Nothing was imported: the ledger is unchanged'}
        </strong>
        {mostlyRejected && <span>The rejected rows are not in the ledger: see why below, correct them and import the file again.</span>}
        <span>{report.message}</span>
        <span className="muted small">
          {report.file_name} · preset {report.preset} · {(report.duration_ms / 1000).toFixed(1)} s
        </span>
      </div>
      <ImportCounts report={report} />
      {report.wallets_created.length > 0 && (
        <p className="muted">
          New wallet{report.wallets_created.length > 1 ? 's' : ''}:{' '}
          {report.wallets_created.map((id, i) => (
            <span key={id}>
              {i > 0 && ', '}
              <WalletName id={id} />
            </span>
          ))}
        </p>
      )}
      <ReadAsSummary readAs={report.read_as} tokenId={tokenId} />
      <UnknownTokens tokens={report.unknown_tokens} firstRows={false} onAdd={onAddTokens} />
      <IgnoredTokens tokens={report.ignored_tokens} firstRows={false} />
      <Rejections fileName={report.file_name} rejections={report.rejections} />
    </>
  );
}
