import { useEffect, useState } from 'react';
import { create } from 'zustand';
import { LEDGER_STATUSES, LEDGER_TYPES, type TransactionRecord } from '../../../../shared/ledger';
import { call } from '../../api';
import { Icon } from '../../components/icons';
import { ExplorerLink } from '../../components/links';
import { Amount, Badge, Empty, ErrorBox, Loading } from '../../components/ui';
import { VirtualTable, type Column } from '../../components/virtual-table';
import { dayToMs, formatCount, formatTime, shorten } from '../../lib/format';
import { usePagedRows } from '../../lib/use-paged-rows';
import { useQuery } from '../../lib/use-query';
import { useReference } from '../../stores/reference';

export interface TxFilters {
  search: string;
  wallet_id: string;
  chain_id: string;
  token_id: string;
  type: string;
  status: string;
  from: string;
  to: string;
}

const NO_FILTERS: TxFilters = { search: '', wallet_id: '', chain_id: '', token_id: '', type: '', status: '', from: '', to: '' };

/** The transaction filters survive a trip to another screen. */
export const useTxFilters = create<{ filters: TxFilters; set: (patch: Partial<TxFilters>) => void; clear: () => void }>((set) => ({
  filters: NO_FILTERS,
  set: (patch) => set((s) => ({ filters: { ...s.filters, ...patch } })),
  clear: () => set({ filters: NO_FILTERS }),
}));

function toQuery(f: TxFilters) {
  const from = dayToMs(f.from);
  const to = dayToMs(f.to);
  return {
    ...(f.search.trim() ? { search: f.search.trim() } : {}),
    ...(f.wallet_id ? { wallet_id: f.wallet_id } : {}),
    ...(f.chain_id ? { chain_id: f.chain_id } : {}),
    ...(f.token_id ? { token_id: f.token_id } : {}),
    ...(f.type ? { type: f.type as (typeof LEDGER_TYPES)[number] } : {}),
    ...(f.status ? { status: f.status as (typeof LEDGER_STATUSES)[number] } : {}),
    ...(from !== undefined ? { from } : {}),
    // "To" is a whole day: everything before the next midnight.
    ...(to !== undefined ? { to: to + 86_400_000 } : {}),
  };
}

// The transaction ID is in the detail (and searchable); the row keeps room for 18-decimal amounts.
const columns: Column<TransactionRecord>[] = [
  { key: 'created', header: 'Created (UTC)', width: '152px', render: (r) => <span className="num">{formatTime(r.created_at)}</span> },
  { key: 'type', header: 'Type', width: '86px', render: (r) => <span className={r.type === 'Deposit' ? 'dir dir-in' : 'dir dir-out'}>{r.type}</span> },
  { key: 'status', header: 'Status', width: '100px', render: (r) => <Badge>{r.status}</Badge> },
  { key: 'chain', header: 'Chain', width: '112px', render: (r) => <span className="mono">{r.chain_id}</span> },
  { key: 'token', header: 'Token', width: '124px', render: (r) => <span className="mono">{r.token_id}</span> },
  { key: 'amount', header: 'Amount', width: '206px', align: 'right', render: (r) => <Amount value={r.amount} /> },
  { key: 'to', header: 'To', width: 'minmax(116px, 1fr)', render: (r) => <ExplorerLink chainId={r.chain_id} kind="address" value={r.to} head={6} tail={4} /> },
  { key: 'hash', header: 'Hash', width: 'minmax(116px, 1fr)', render: (r) => <ExplorerLink chainId={r.chain_id} kind="tx" value={r.hash} head={6} tail={4} /> },
];

const FIELDS: [keyof TransactionRecord, string][] = [
  ['transaction_id', 'Transaction ID'],
  ['request_id', 'Request ID'],
  ['wallet_id', 'Wallet'],
  ['type', 'Type'],
  ['status', 'Status'],
  ['chain_id', 'Chain'],
  ['token_id', 'Token'],
  ['amount', 'Amount'],
  ['fee', 'Fee'],
  ['fee_ratio', 'Fee ratio'],
  ['fee_fixed', 'Fixed fee'],
  ['er', 'Exchange rate'],
  ['amount_actual', 'Amount actual'],
  ['to', 'To'],
  ['hash', 'Hash'],
  ['created_at', 'Created (UTC)'],
  ['confirmed_at', 'Confirmed (UTC)'],
  ['completed_at', 'Completed (UTC)'],
  ['import_id', 'Last import'],
  ['updated_at', 'Updated (UTC)'],
];

const AMOUNT_FIELDS = new Set(['amount', 'fee', 'fee_ratio', 'fee_fixed', 'er', 'amount_actual']);
const TIME_FIELDS = new Set(['created_at', 'confirmed_at', 'completed_at', 'updated_at']);

export function TransactionDetail({ record, onClose }: { record: TransactionRecord; onClose: () => void }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <aside className="drawer" aria-label="Transaction detail">
      <header className="drawer-head">
        <h2>Transaction</h2>
        <button type="button" className="btn btn-ghost btn-icon" onClick={onClose} aria-label="Close detail">
          <Icon name="close" />
        </button>
      </header>
      <dl className="kv kv-detail">
        {FIELDS.map(([k, label]) => {
          const v = record[k];
          let body;
          if (k === 'hash') body = <ExplorerLink chainId={record.chain_id} kind="tx" value={record.hash} short={false} />;
          else if (k === 'to') body = <ExplorerLink chainId={record.chain_id} kind="address" value={record.to} short={false} />;
          else if (v === null || v === '') body = <span className="muted">—</span>;
          else if (AMOUNT_FIELDS.has(k)) body = <Amount value={String(v)} />;
          else if (TIME_FIELDS.has(k)) body = <span className="num">{formatTime(v as number)}</span>;
          else body = <span className="mono break">{String(v)}</span>;
          return (
            <div key={k} className="kv-row">
              <dt>{label}</dt>
              <dd>{body}</dd>
            </div>
          );
        })}
      </dl>
    </aside>
  );
}

function FilterBar() {
  const { filters, set, clear } = useTxFilters();
  const chains = useReference((s) => s.chains.data);
  const wallets = useReference((s) => s.wallets.data);
  const [search, setSearch] = useState(filters.search);
  const tokens = useQuery(filters.chain_id ? `tokens:${filters.chain_id}` : 'tokens:*', () =>
    call('catalogue-tokens-list', { page_size: 100, ...(filters.chain_id ? { chain_id: filters.chain_id } : {}) }),
  );
  const any = Object.values(filters).some(Boolean);
  return (
    <form
      className="toolbar"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        set({ search });
      }}
    >
      <div className="search">
        <Icon name="search" size={15} />
        <input
          aria-label="Search by hash, transaction ID or request ID"
          placeholder="Find a hash, transaction ID or request ID"
          className="mono"
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            if (e.target.value === '') set({ search: '' });
          }}
          spellCheck={false}
        />
      </div>
      <select aria-label="Wallet" value={filters.wallet_id} onChange={(e) => set({ wallet_id: e.target.value })}>
        <option value="">All wallets</option>
        {(wallets ?? []).map((w) => (
          <option key={w.wallet_id} value={w.wallet_id}>
            {w.name || shorten(w.wallet_id, 8, 4)} ({formatCount(w.transactions)})
          </option>
        ))}
      </select>
      <select aria-label="Chain" value={filters.chain_id} onChange={(e) => set({ chain_id: e.target.value, token_id: '' })}>
        <option value="">All chains</option>
        {(chains ?? []).map((c) => (
          <option key={c.chain_id} value={c.chain_id}>
            {c.chain_id}
          </option>
        ))}
      </select>
      <select aria-label="Token" value={filters.token_id} onChange={(e) => set({ token_id: e.target.value })}>
        <option value="">All tokens</option>
        {(tokens.data?.list ?? []).map((t) => (
          <option key={t.token_id} value={t.token_id}>
            {t.token_id}
          </option>
        ))}
      </select>
      <select aria-label="Type" value={filters.type} onChange={(e) => set({ type: e.target.value })}>
        <option value="">All types</option>
        {LEDGER_TYPES.map((t) => (
          <option key={t}>{t}</option>
        ))}
      </select>
      <select aria-label="Status" value={filters.status} onChange={(e) => set({ status: e.target.value })}>
        <option value="">All statuses</option>
        {LEDGER_STATUSES.map((t) => (
          <option key={t}>{t}</option>
        ))}
      </select>
      <label className="inline-label">
        From
        <input type="date" aria-label="Created from (UTC day)" value={filters.from} onChange={(e) => set({ from: e.target.value })} />
      </label>
      <label className="inline-label">
        to
        <input type="date" aria-label="Created to (UTC day, inclusive)" value={filters.to} onChange={(e) => set({ to: e.target.value })} />
      </label>
      {any && (
        <button
          type="button"
          className="btn btn-ghost btn-small"
          onClick={() => {
            setSearch('');
            clear();
          }}
        >
          Clear filters
        </button>
      )}
    </form>
  );
}

export function TransactionsTab({ onImport }: { onImport: () => void }) {
  const filters = useTxFilters((s) => s.filters);
  const loadWallets = useReference((s) => s.loadWallets);
  const query = toQuery(filters);
  const rows = usePagedRows(JSON.stringify(query), (page, page_size) => call('transactions-list', { ...query, page, page_size }));
  const [selected, setSelected] = useState<number>();
  const [open, setOpen] = useState<TransactionRecord>();
  const filtered = Object.values(filters).some(Boolean);

  useEffect(() => loadWallets(true), [loadWallets]);

  let body;
  if (rows.error) body = <ErrorBox message={rows.error} onRetry={rows.reload} title="Could not load the transactions" />;
  else if (rows.total === undefined) body = <Loading what="transactions" />;
  else if (rows.total === 0)
    body = filtered ? (
      <Empty title="No transactions match these filters">Search looks for an exact hash, transaction ID or request ID. Clear the filters to see everything.</Empty>
    ) : (
      <Empty title="The ledger is empty">
        <p>Import a ledger file (CSV or JSON) to start reconciling.</p>
        <button type="button" className="btn btn-primary" onClick={onImport}>
          Import a ledger file
        </button>
      </Empty>
    );
  else
    body = (
      <VirtualTable
        label="Transactions"
        columns={columns}
        rowCount={rows.total}
        getRow={rows.getRow}
        rowKey={(r, i) => r?.transaction_id ?? `i${i}`}
        onRange={rows.onRange}
        selected={selected}
        onSelect={setSelected}
        onOpen={(i) => {
          const r = rows.getRow(i);
          if (r) setOpen(r);
        }}
      />
    );

  return (
    <div className="tx-layout">
      <FilterBar />
      <div className="tx-meta">
        <span data-testid="tx-count">{rows.total === undefined ? '…' : `${formatCount(rows.total)} transaction${rows.total === 1 ? '' : 's'}`}</span>
        <span className="muted">Double-click or Enter opens a row · ↑↓ PgUp PgDn Home End move</span>
      </div>
      <div className="tx-body">
        {body}
        {open && <TransactionDetail record={open} onClose={() => setOpen(undefined)} />}
      </div>
    </div>
  );
}
