import { actorLabel } from '../../../../shared/actors';
import { useState } from 'react';
import type { ImportListed } from '../../../../shared/ledger';
import { call, errorText } from '../../api';
import { DataTable, type SimpleColumn } from '../../components/data-table';
import { Dialog, Empty, ErrorBox, Loading, Pager } from '../../components/ui';
import { formatBytes, formatTime } from '../../lib/format';
import { useQuery } from '../../lib/use-query';
import { WalletName } from '../../components/wallet-name';
import { ImportCounts, ReadAsSummary, Rejections } from './report';
import { useChangeKey } from '../../stores/changes';

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

const columns: SimpleColumn<ImportListed>[] = [
  { key: 'at', header: 'Finished (UTC)', render: (i) => <span className="num">{formatTime(i.finished_at)}</span> },
  { key: 'file', header: 'File', render: (i) => <span className="mono">{i.file_name}</span> },
  {
    key: 'wallet',
    header: 'Wallet',
    render: (i) => (i.wallet_id ? <WalletName id={i.wallet_id} /> : <span className="muted">from the file</span>),
  },
  { key: 'preset', header: 'Preset', render: (i) => i.preset },
  { key: 'chain', header: 'Chain', render: (i) => <span className="mono">{i.read_as?.chain_id ?? ''}</span> },
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

/** Who undid the import and when (UTC), as the history row and the detail say it. */
const undoneText = (i: ImportListed) => `Undone by ${i.undone_by ? actorLabel(i.undone_by) : 'someone'}, ${formatTime(i.undone_at)} UTC`;

/**
 * The confirmation of an undo: exactly what will change, from the service's own count, or why the
 * import cannot be undone yet (a later import that stands changed its records).
 */
function UndoImportDialog({ importId, onClose, onUndone }: { importId: string; onClose: () => void; onUndone: () => void }) {
  const plan = useQuery(`undo:${importId}`, () => call('import-undo-preview', { import_id: importId }));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const p = plan.data;
  const blocked = p !== undefined && p.blocked_by.length > 0;
  const undo = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await call('import-undo', { import_id: importId });
      onUndone();
      onClose();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <Dialog
      title="Undo import"
      onClose={onClose}
      footer={
        <>
          <button type="button" className="btn btn-ghost" onClick={onClose} autoFocus>
            {blocked ? 'Close' : 'Keep the import'}
          </button>
          {p && !blocked && (
            <button type="button" className="btn btn-danger" onClick={undo} disabled={busy} data-testid="undo-confirm">
              {busy ? 'Undoing…' : 'Undo import'}
            </button>
          )}
        </>
      }
    >
      {plan.error ? (
        <ErrorBox message={plan.error} onRetry={plan.reload} />
      ) : !p ? (
        <Loading what="what the undo changes" />
      ) : (
        <div data-testid="undo-plan">
          <p>
            <span className="mono">{p.file_name}</span> <span className="muted">· imported {formatTime(p.finished_at)} UTC</span>
          </p>
          {blocked ? (
            <p role="alert">
              This import cannot be undone yet: {p.blocked_by.length === 1 ? 'a later import' : 'later imports'} changed its records. Undo{' '}
              {p.blocked_by.map((b, k) => (
                <span key={b.import_id}>
                  {k > 0 && ', '}
                  <span className="mono" title={b.import_id}>
                    {b.file_name}
                  </span>
                </span>
              ))}{' '}
              first.
            </p>
          ) : (
            <>
              <p>Undoing this import changes the ledger as follows:</p>
              <ul>
                <li>{plural(p.remove, 'record')} it added will be removed.</li>
                <li>{plural(p.restore, 'record')} it updated will be restored to their earlier version.</li>
                <li>{plural(p.tickets, 'Pending ticket')} on the removed records will be dismissed.</li>
              </ul>
              <p className="muted">The import stays in this history, marked as undone by you.</p>
            </>
          )}
        </div>
      )}
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </Dialog>
  );
}

function ImportDetailDialog({ importId, onClose }: { importId: string; onClose: () => void }) {
  const detail = useQuery(importId, () => call('import-get', { import_id: importId }));
  return (
    <Dialog title="Import" onClose={onClose} wide>
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
          {detail.data.undone_at !== null && <p data-testid="undone-note">{undoneText(detail.data)}</p>}
          <p>
            <span className="muted">Preset</span> {detail.data.preset}
            {detail.data.wallet_id && (
              <>
                {' '}
                · <span className="muted">into wallet</span> <WalletName id={detail.data.wallet_id} />
              </>
            )}
          </p>
          {detail.data.read_as ? (
            <ReadAsSummary readAs={detail.data.read_as} />
          ) : (
            <p className="muted">How this file was read was not kept (imported before this version).</p>
          )}
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
  // An import landed or was undone elsewhere (the command line, another window): the history reloads.
  const othersChanged = useChangeKey('imports');
  const list = useQuery(`imports:${page}:${othersChanged}`, () => call('imports-list', { page, page_size: 20 }));
  const [open, setOpen] = useState<string>();
  const [undoing, setUndoing] = useState<string>();
  const withUndo: SimpleColumn<ImportListed>[] = [
    ...columns,
    {
      key: 'undo',
      header: 'Undo',
      render: (i) =>
        i.undone_at !== null ? (
          <span className="muted" data-testid="undone">
            {undoneText(i)}
          </span>
        ) : (
          <button
            type="button"
            className="btn btn-small btn-danger-ghost"
            aria-label={`Undo import of ${i.file_name}`}
            onClick={(e) => {
              e.stopPropagation();
              setUndoing(i.import_id);
            }}
            onKeyDown={(e) => e.stopPropagation()}
          >
            Undo import
          </button>
        ),
    },
  ];
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
            columns={withUndo}
            rows={list.data.list}
            rowKey={(i) => i.import_id}
            rowClass={(i) => (i.undone_at !== null ? 'row-muted' : undefined)}
            onRowClick={(i) => setOpen(i.import_id)}
          />
          <Pager page={page} pageSize={20} total={list.data.total} onPage={setPage} busy={list.loading} />
        </>
      )}
      {open && <ImportDetailDialog importId={open} onClose={() => setOpen(undefined)} />}
      {undoing && <UndoImportDialog importId={undoing} onClose={() => setUndoing(undefined)} onUndone={list.reload} />}
    </div>
  );
}
