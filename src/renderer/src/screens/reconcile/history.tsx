import { useState } from 'react';
import type { RunSummary } from '../../../../shared/reconcile';
import { REPORT_GROUP_LABELS as GROUP } from '../../../../shared/reports';
import { call } from '../../api';
import { DataTable, type SimpleColumn } from '../../components/data-table';
import { Empty, ErrorBox, Loading, Pager } from '../../components/ui';
import { WalletName } from '../../components/wallet-name';
import { formatTime, shorten } from '../../lib/format';
import { useQuery } from '../../lib/use-query';
import { useRoute } from '../../stores/route';
import { useChangeKey } from '../../stores/changes';

const columns: SimpleColumn<RunSummary>[] = [
  { key: 'at', header: 'When (UTC)', render: (r) => <span className="num">{formatTime(r.created_at)}</span> },
  { key: 'label', header: 'Label', render: (r) => r.label || <span className="muted">—</span> },
  {
    key: 'source',
    header: 'From',
    render: (r) => (r.source === 'ui' ? 'This app' : r.source === 'api' ? `API ${r.api_key ? shorten(r.api_key, 6, 4) : ''}` : 'CLI'),
  },
  {
    key: 'wallet',
    header: 'Wallet',
    render: (r) => (r.wallet_id ? <WalletName id={r.wallet_id} /> : <span className="muted">all</span>),
  },
  { key: 'items', header: 'Rows', align: 'right', render: (r) => <span className="num">{r.item_count}</span> },
  { key: 'matched', header: GROUP.matched, align: 'right', render: (r) => <span className="num text-good">{r.matched}</span> },
  {
    key: 'mismatched',
    header: GROUP.mismatched,
    align: 'right',
    render: (r) => <span className={r.mismatched ? 'num text-bad' : 'num'}>{r.mismatched}</span>,
  },
  { key: 'nf', header: GROUP.not_in_ledger, align: 'right', render: (r) => <span className="num">{r.not_found}</span> },
  {
    key: 'nib',
    header: GROUP.not_in_books,
    align: 'right',
    render: (r) => (r.two_way ? <span className="num">{r.not_in_books}</span> : <span className="muted">—</span>),
  },
  { key: 'dup', header: GROUP.duplicates, align: 'right', render: (r) => <span className="num">{r.duplicates}</span> },
  {
    key: 'unreadable',
    header: 'Unreadable',
    align: 'right',
    render: (r) => <span className={r.rejected_count ? 'num text-warn' : 'num muted'}>{r.rejected_count}</span>,
  },
];

export function RunHistory() {
  const go = useRoute((s) => s.go);
  const [page, setPage] = useState(1);
  const othersChanged = useChangeKey('runs');
  const runs = useQuery(`runs:${page}:${othersChanged}`, () => call('runs-list', { page, page_size: 20 }));
  if (runs.error) return <ErrorBox message={runs.error} onRetry={runs.reload} title="Could not load the runs" />;
  if (!runs.data) return <Loading what="past runs" />;
  if (runs.data.total === 0)
    return (
      <Empty title="No reconciliation runs yet">
        Runs from this window, from the /nps API and from the command line are all kept here for the audit trail.
      </Empty>
    );
  return (
    <div className="panel">
      <DataTable
        label="Past runs"
        columns={columns}
        rows={runs.data.list}
        rowKey={(r) => r.run_id}
        onRowClick={(r) => go({ screen: 'reconcile', sub: 'run', id: r.run_id })}
      />
      <Pager page={page} pageSize={20} total={runs.data.total} onPage={setPage} busy={runs.loading} />
    </div>
  );
}
