import { useState } from 'react';
import type { SavedMapping } from '../../../../shared/reconcile';
import { call } from '../../api';
import { DataTable, type SimpleColumn } from '../../components/data-table';
import { Badge, ConfirmDialog, Empty, ErrorBox, Field, FormDialog, Loading } from '../../components/ui';
import { WalletName } from '../../components/wallet-name';
import { formatTime } from '../../lib/format';
import { useQuery } from '../../lib/use-query';
import { useChangeKey } from '../../stores/changes';
import { useReference } from '../../stores/reference';
import { FormatFields, MappingTable, Translations, type MappingIn } from './mapping-editor';

/*
 * Reconcile → Saved mappings: the books mappings kept for the next file of a layout (a run keeps
 * the one it used; "Save mapping as…" names one), renamed, edited against their layout's columns,
 * moved to another wallet, removed.
 */

const layoutText = (headers: string[]) =>
  headers.length > 5 ? `${headers.slice(0, 5).join(', ')}, … (${headers.length} columns)` : headers.join(', ');

export function SavedMappings() {
  // A run remembers its file's mapping too.
  const othersChanged = useChangeKey('mappings', 'runs');
  const list = useQuery(`books-mappings:${othersChanged}`, () => call('books-mappings-list', {}));
  const [editing, setEditing] = useState<SavedMapping>();
  const [removing, setRemoving] = useState<SavedMapping>();
  if (list.error) return <ErrorBox message={list.error} onRetry={list.reload} title="Could not load the saved mappings" />;
  if (!list.data) return <Loading what="the saved mappings" />;
  if (list.data.length === 0)
    return (
      <Empty title="No saved mappings yet">
        A run keeps the mapping it used, and the next books file with the same columns is proposed it. Reconcile → New run → “Save mapping
        as…” names one.
      </Empty>
    );
  const columns: SimpleColumn<SavedMapping>[] = [
    {
      key: 'name',
      header: 'Name',
      render: (m) => (
        <>
          <span className="strong">{m.name}</span> {!m.named && <Badge tone="neutral">kept by a run</Badge>}
        </>
      ),
    },
    {
      key: 'wallet',
      header: 'Wallet',
      render: (m) => (m.wallet_id ? <WalletName id={m.wallet_id} /> : <span className="muted">all wallets</span>),
    },
    { key: 'layout', header: 'Books columns', render: (m) => <span className="small">{layoutText(m.headers)}</span> },
    { key: 'used', header: 'Last used (UTC)', render: (m) => <span className="num">{formatTime(m.used_at)}</span> },
    {
      key: 'actions',
      header: <span className="sr-only">Actions</span>,
      align: 'right',
      render: (m) => (
        <span className="row-actions">
          <button type="button" className="btn btn-small" onClick={() => setEditing(m)} aria-label={`Edit ${m.name}`}>
            Edit
          </button>
          <button type="button" className="btn btn-small btn-ghost" onClick={() => setRemoving(m)} aria-label={`Remove ${m.name}`}>
            Remove
          </button>
        </span>
      ),
    },
  ];
  return (
    <div className="panel">
      <p className="muted small">
        Each is proposed for a books file with the same columns (in any case, spaces around them ignored): the one of the run’s wallet
        first, else the last used.
      </p>
      <DataTable label="Saved mappings" columns={columns} rows={list.data} rowKey={(m) => m.mapping_id} />
      {editing && <EditDialog mapping={editing} onClose={() => setEditing(undefined)} onSaved={list.reload} />}
      {removing && <RemoveDialog mapping={removing} onClose={() => setRemoving(undefined)} onRemoved={list.reload} />}
    </div>
  );
}

/** A saved mapping edited against its layout's columns (no file: the preview is New run's). */
function EditDialog({ mapping, onClose, onSaved }: { mapping: SavedMapping; onClose: () => void; onSaved: () => void }) {
  const wallets = useReference((s) => s.wallets.data);
  const [name, setName] = useState(mapping.name);
  const [walletId, setWalletId] = useState(mapping.wallet_id ?? '');
  const [edited, setEdited] = useState<MappingIn>(mapping.mapping);
  return (
    <FormDialog
      id="edit-mapping"
      title={`Edit “${mapping.name}”`}
      submitLabel="Save"
      busyLabel="Saving…"
      canSubmit={name.trim() !== ''}
      onClose={onClose}
      wide
      action={async () => {
        await call('books-mapping-update', {
          mapping_id: mapping.mapping_id,
          ...(name.trim() !== mapping.name ? { name: name.trim() } : {}),
          wallet_id: walletId || null,
          mapping: edited,
        });
        onSaved();
        onClose();
      }}
    >
      <div className="form-row">
        <Field label="Name" htmlFor="edit-mapping-name">
          <input id="edit-mapping-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />
        </Field>
        <Field label="Wallet" htmlFor="edit-mapping-wallet" hint="Proposed first for runs of this wallet">
          <select id="edit-mapping-wallet" value={walletId} onChange={(e) => setWalletId(e.target.value)}>
            <option value="">All wallets</option>
            {(wallets ?? []).map((x) => (
              <option key={x.wallet_id} value={x.wallet_id}>
                {x.name || x.wallet_id}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <p className="muted small">Books columns: {layoutText(mapping.headers)}</p>
      <div className="split">
        <div className="mapping-wrap">
          <MappingTable headers={mapping.headers} sample={[]} mapping={edited} onChange={setEdited} disabled={false} />
          <Translations sample={[]} mapping={edited} onChange={setEdited} disabled={false} />
        </div>
        <aside className="side-form">
          <h3>How the books write it</h3>
          <FormatFields mapping={edited} onChange={setEdited} disabled={false} idPrefix="edit-mapping" />
        </aside>
      </div>
    </FormDialog>
  );
}

function RemoveDialog({ mapping, onClose, onRemoved }: { mapping: SavedMapping; onClose: () => void; onRemoved: () => void }) {
  return (
    <ConfirmDialog
      title="Remove this saved mapping?"
      keepLabel="Keep it"
      actLabel="Remove"
      action={async () => {
        await call('books-mapping-remove', { mapping: mapping.mapping_id });
        onRemoved();
      }}
      onClose={onClose}
    >
      <p>
        <strong>{mapping.name}</strong> will no longer be proposed for books with its columns; the next run of that layout keeps its own
        mapping again. Past runs keep the mapping they were read with.
      </p>
    </ConfirmDialog>
  );
}
