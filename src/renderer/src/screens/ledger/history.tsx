import { useState } from 'react';
import type { ImportSummary } from '../../../../shared/ledger';
import { call } from '../../api';
import { DataTable, type SimpleColumn } from '../../components/data-table';
import { Dialog, Empty, ErrorBox, Loading, Pager } from '../../components/ui';
import { formatBytes, formatTime } from '../../lib/format';
import { useQuery } from '../../lib/use-query';
import { ImportCounts, Rejections } from './report';

const columns: SimpleColumn<ImportSummary>[] = [
  { key: 'at', header: 'Finished (UTC)', render: (i) => <span className="num">{formatTime(i.finished_at)}</span> },
  { key: 'file', header: 'File', render: (i) => <span className="mono">{i.file_name}</span> },
  { key: 'preset', header: 'Preset', render: (i) => i.preset },
  { key: 'size', header: 'Size', align: 'right', render: (i) => <span className="num">{formatBytes(i.file_size)}</span> },
  { key: 'rows', header: 'Rows', align: 'right', render: (i) => <span className="num">{i.rows_total}</span> },
  { key: 'added', header: 'Added', align: 'right', render: (i) => <span className="num">{i.added}</span> },
  { key: 'updated', header: 'Updated', align: 'right', render: (i) => <span className="num">{i.updated}</span> },
  { key: 'unchanged', header: 'Unchanged', align: 'right', render: (i) => <span className="num">{i.unchanged}</span> },
  {
    key: 'rejected',
    header: 'Rejected',
    align: 'right',
    render: (i) => <span className={i.rejected ? 'num text-bad' : 'num'}>{i.rejected}</span>,
  },
];

function ImportDetailDialog({ importId, onClose }: { importId: string; onClose: () => void }) {
  const detail = useQuery(importId, () => call('import-get', { import_id: importId }));
  return (
    <Dialog title="Import" onClose={onClose}>
      {detail.error ? (
        <ErrorBox message={detail.error} onRetry={detail.reload} />
      ) : !detail.data ? (
        <Loading what="the import" />
      ) : (
        <>
          <p>
            <span className="mono">{detail.data.file_name}</span>{' '}
            <span className="muted">
              · sha256 {detail.data.file_sha256.slice(0, 16)}… · {formatTime(detail.data.finished_at)} UTC
            </span>
          </p>
          <ImportCounts report={{ ...detail.data, dry_run: false }} />
          {detail.data.rejections.length === 0 ? (
            <p className="muted">No row was rejected.</p>
          ) : (
            <Rejections fileName={detail.data.file_name} rejections={detail.data.rejections} limit={200} />
          )}
        </>
      )}
    </Dialog>
  );
}

export function ImportHistory() {
  const [page, setPage] = useState(1);
  const list = useQuery(`imports:${page}`, () => call('imports-list', { page, page_size: 20 }));
  const [open, setOpen] = useState<string>();
  if (list.error) return <ErrorBox message={list.error} onRetry={list.reload} title="Could not load the imports" />;
  if (!list.data) return <Loading what="imports" />;
  return (
    <div className="panel">
      {list.data.total === 0 ? (
        <Empty title="No imports yet">Every ledger file you import is listed here with its counts and rejected rows.</Empty>
      ) : (
        <>
          <DataTable
            label="Imports"
            columns={columns}
            rows={list.data.list}
            rowKey={(i) => i.import_id}
            onRowClick={(i) => setOpen(i.import_id)}
          />
          <Pager page={page} pageSize={20} total={list.data.total} onPage={setPage} busy={list.loading} />
        </>
      )}
      {open && <ImportDetailDialog importId={open} onClose={() => setOpen(undefined)} />}
    </div>
  );
}
