import { useEffect, useState } from 'react';
import type { WalletSummary } from '../../../shared/wallets';
import { call, errorText } from '../api';
import { DataTable, type SimpleColumn } from '../components/data-table';
import { Empty, ErrorBox, Field, FormDialog, Loading, PageHeader } from '../components/ui';
import { formatCount, shorten } from '../lib/format';
import { useReference } from '../stores/reference';

/*
 * Named wallets: the ledger knows a wallet by its UUID; people know it by its name. Here wallets
 * get their names, notes and own addresses per chain (an address on a file's chain tells an
 * import's deposits from its withdrawals).
 */

function ChainSelect({ id, value, onChange }: { id: string; value: string; onChange: (v: string) => void }) {
  const chains = useReference((s) => s.chains.data);
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">Choose a chain</option>
      {(chains ?? [])
        .filter((c) => c.enabled || c.chain_id === value)
        .map((c) => (
          <option key={c.chain_id} value={c.chain_id}>
            {c.name} ({c.chain_id})
          </option>
        ))}
    </select>
  );
}

function WalletDialog({ wallet, onClose, onSaved }: { wallet?: WalletSummary; onClose: () => void; onSaved: () => void }) {
  const [name, setName] = useState(wallet?.name ?? '');
  const [notes, setNotes] = useState(wallet?.notes ?? '');
  const [chain, setChain] = useState('');
  const [address, setAddress] = useState('');
  return (
    <FormDialog
      id="wallet-form"
      title={wallet ? `Edit wallet ${wallet.name || wallet.wallet_id}` : 'New wallet'}
      submitLabel={wallet ? 'Save' : 'Create wallet'}
      busyLabel="Saving…"
      canSubmit={name.trim() !== '' && (address.trim() === '' || chain !== '')}
      onClose={onClose}
      action={async () => {
        if (wallet) await call('wallet-update', { wallet_id: wallet.wallet_id, name, notes });
        else
          await call('wallet-create', {
            name,
            notes,
            ...(address.trim() ? { addresses: [{ chain_id: chain, address: address.trim() }] } : {}),
          });
        onSaved();
        onClose();
      }}
    >
      {wallet && (
        <p className="muted small">
          ID <span className="mono">{wallet.wallet_id}</span> (what the ledger, the API and key scopes use)
        </p>
      )}
      <Field label="Name" htmlFor="wallet-name" hint="Unique, ignoring case, e.g. “Treasury (Tron)”">
        <input id="wallet-name" value={name} onChange={(e) => setName(e.target.value)} autoFocus maxLength={100} />
      </Field>
      <Field label="Notes" htmlFor="wallet-notes" hint="Who holds it, what it is for">
        <textarea id="wallet-notes" rows={3} value={notes} onChange={(e) => setNotes(e.target.value)} maxLength={2000} />
      </Field>
      {!wallet && (
        <>
          <Field label="Chain of its address" htmlFor="wallet-chain" hint="Optional; more addresses can be added later">
            <ChainSelect id="wallet-chain" value={chain} onChange={setChain} />
          </Field>
          <Field label="Address" htmlFor="wallet-address">
            <input id="wallet-address" className="mono" value={address} onChange={(e) => setAddress(e.target.value)} spellCheck={false} />
          </Field>
        </>
      )}
    </FormDialog>
  );
}

function AddressesCell({ wallet, onChanged }: { wallet: WalletSummary; onChanged: () => void }) {
  const [error, setError] = useState<string>();
  const remove = async (chain_id: string, address: string) => {
    setError(undefined);
    try {
      await call('wallet-address-remove', { wallet_id: wallet.wallet_id, chain_id, address });
      onChanged();
    } catch (err) {
      setError(errorText(err));
    }
  };
  if (wallet.addresses.length === 0 && !error) return <span className="muted">none</span>;
  return (
    <ul className="wallet-addresses">
      {wallet.addresses.map((a) => (
        <li key={`${a.chain_id} ${a.address}`}>
          <span className="chip">{a.chain_id}</span>
          <span className="mono">{a.address}</span>
          {a.label && <span className="muted">{a.label}</span>}
          <button
            type="button"
            className="btn btn-small btn-ghost"
            aria-label={`Remove ${a.address} on ${a.chain_id}`}
            onClick={() => void remove(a.chain_id, a.address)}
          >
            Remove
          </button>
        </li>
      ))}
      {error && (
        <li className="error-text" role="alert">
          {error}
        </li>
      )}
    </ul>
  );
}

function AddAddressDialog({ wallet, onClose, onSaved }: { wallet: WalletSummary; onClose: () => void; onSaved: () => void }) {
  const [chain, setChain] = useState('');
  const [address, setAddress] = useState('');
  const [label, setLabel] = useState('');
  return (
    <FormDialog
      id="wallet-address-form"
      title={`Add an address to ${wallet.name || wallet.wallet_id}`}
      submitLabel="Add address"
      busyLabel="Adding…"
      canSubmit={chain !== '' && address.trim() !== ''}
      onClose={onClose}
      action={async () => {
        await call('wallet-address-add', { wallet_id: wallet.wallet_id, chain_id: chain, address: address.trim(), label });
        onSaved();
        onClose();
      }}
    >
      <p className="muted">
        An address belongs to one wallet per chain. An import into this wallet of a file of that chain reads deposits and withdrawals by it.
      </p>
      <Field label="Chain" htmlFor="address-chain">
        <ChainSelect id="address-chain" value={chain} onChange={setChain} />
      </Field>
      <Field label="Address" htmlFor="address-text">
        <input
          id="address-text"
          className="mono"
          value={address}
          onChange={(e) => setAddress(e.target.value)}
          spellCheck={false}
          autoFocus
        />
      </Field>
      <Field label="Label" htmlFor="address-label" hint="Optional, e.g. “deposit address”">
        <input id="address-label" value={label} onChange={(e) => setLabel(e.target.value)} maxLength={100} />
      </Field>
    </FormDialog>
  );
}

export function WalletsScreen() {
  const wallets = useReference((s) => s.wallets);
  const loadWallets = useReference((s) => s.loadWallets);
  const [dialog, setDialog] = useState<{ kind: 'create' } | { kind: 'edit' | 'address'; wallet: WalletSummary }>();
  useEffect(() => loadWallets(true), [loadWallets]);
  const reload = () => loadWallets(true);
  const columns: SimpleColumn<WalletSummary>[] = [
    {
      key: 'name',
      header: 'Name',
      render: (w) => (
        <div>
          <div className="strong">{w.name || <span className="muted">Unnamed</span>}</div>
          <div className="mono muted small" title={w.wallet_id} data-testid="wallet-id">
            {shorten(w.wallet_id, 8, 4)}
          </div>
        </div>
      ),
    },
    { key: 'addresses', header: 'Addresses', render: (w) => <AddressesCell wallet={w} onChanged={reload} /> },
    {
      key: 'notes',
      header: 'Notes',
      render: (w) => (w.notes ? <span className="pre-line">{w.notes}</span> : <span className="muted">—</span>),
    },
    { key: 'records', header: 'Records', align: 'right', render: (w) => <span className="num">{formatCount(w.transactions)}</span> },
    {
      key: 'actions',
      header: <span className="sr-only">Actions</span>,
      align: 'right',
      render: (w) => (
        <span className="row-actions wallet-actions">
          <button type="button" className="btn btn-small" onClick={() => setDialog({ kind: 'edit', wallet: w })}>
            {w.name ? 'Edit' : 'Name it'}
          </button>
          <button type="button" className="btn btn-small" onClick={() => setDialog({ kind: 'address', wallet: w })}>
            Add address
          </button>
        </span>
      ),
    },
  ];
  return (
    <div className="screen">
      <PageHeader
        title="Wallets"
        subtitle="Names, notes and own addresses of the ledger's wallets. Every screen shows a wallet by its name; its ID is on hover."
        actions={
          <button type="button" className="btn btn-primary" onClick={() => setDialog({ kind: 'create' })}>
            New wallet
          </button>
        }
      />
      <section className="card">
        {wallets.error && !wallets.data ? (
          <ErrorBox message={wallets.error} onRetry={reload} title="Could not load the wallets" />
        ) : !wallets.data ? (
          <Loading what="wallets" />
        ) : wallets.data.length === 0 ? (
          <Empty title="No wallets yet">Create one here, or import a file: the import creates its wallet, by name if you give one.</Empty>
        ) : (
          <DataTable label="Wallets" columns={columns} rows={wallets.data} rowKey={(w) => w.wallet_id} />
        )}
      </section>
      {dialog?.kind === 'create' && <WalletDialog onClose={() => setDialog(undefined)} onSaved={reload} />}
      {dialog?.kind === 'edit' && <WalletDialog wallet={dialog.wallet} onClose={() => setDialog(undefined)} onSaved={reload} />}
      {dialog?.kind === 'address' && <AddAddressDialog wallet={dialog.wallet} onClose={() => setDialog(undefined)} onSaved={reload} />}
    </div>
  );
}
