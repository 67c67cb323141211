import { ChainTokenFilter } from '../../components/chain-token-filter';
import { useEffect, useMemo, useState } from 'react';
import { create } from 'zustand';
import {
  LEDGER_STATUSES,
  LEDGER_TYPES,
  RECORD_FIELDS,
  MAX_EXPORT_RECORDS,
  PARTIAL_SEARCH_MIN,
  RECORD_TIME_FIELDS,
  TRANSACTION_SORTS,
  FAILED_FEE_RULE,
  UNSUMMED_STATUSES,
  type LedgerRecord,
  type LedgerTotals,
  type RecordField,
  type TransactionSort,
} from '../../../../shared/ledger';
import type { ReportFormat } from '../../../../shared/reports';
import { call, errorText } from '../../api';
import { Icon } from '../../components/icons';
import { ExplorerLink } from '../../components/links';
import { Amount, Badge, Empty, ErrorBox, FieldName, Loading, NoValue } from '../../components/ui';
import { VirtualTable, type Column } from '../../components/virtual-table';
import { WalletName } from '../../components/wallet-name';
import { downloadFile } from '../../lib/download';
import { labelOf } from '../../lib/fields';
import { dayToMs, formatCount, formatTime, shorten } from '../../lib/format';
import { usePagedRows } from '../../lib/use-paged-rows';
import { useQuery } from '../../lib/use-query';
import { useReference } from '../../stores/reference';
import { ChainCheckDialog } from './chain-check';
import { useChangeKey } from '../../stores/changes';

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

interface TxSort {
  sort: TransactionSort;
  order: 'asc' | 'desc';
}
const NEWEST_FIRST: TxSort = { sort: 'created_at', order: 'desc' };

/** The transaction filters and sort survive a trip to another screen. */
const useTxFilters = create<{
  filters: TxFilters;
  sort: TxSort;
  set: (patch: Partial<TxFilters>) => void;
  clear: () => void;
  sortBy: (sort: TransactionSort) => void;
}>((set) => ({
  filters: NO_FILTERS,
  sort: NEWEST_FIRST,
  set: (patch) => set((s) => ({ filters: { ...s.filters, ...patch } })),
  clear: () => set({ filters: NO_FILTERS }),
  // A second click on the sorted column turns its order; a new column starts with the largest, latest or last first.
  sortBy: (sort) => set((s) => ({ sort: { sort, order: s.sort.sort === sort && s.sort.order === 'desc' ? 'asc' : 'desc' } })),
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

type Field = keyof LedgerRecord;

const AMOUNT_FIELDS = new Set<Field>(['amount', 'fee_ratio', 'fee_fixed', 'fee', 'er', 'amount_actual']);
const TIME_FIELDS = new Set<Field>([...RECORD_TIME_FIELDS, 'updated_at']);
const ID_FIELDS = new Set<Field>(['transaction_id', 'import_id']);

/** One value of a record: amounts exact, times in UTC, hashes and addresses as explorer links, an empty value as a dash. */
function RecordValue({ record, field, full = false }: { record: LedgerRecord; field: Field; full?: boolean }) {
  const v = record[field];
  if (field === 'hash') return <ExplorerLink chainId={record.chain_id} kind="tx" value={record.hash} short={!full} head={6} tail={4} />;
  if (field === 'to') return <ExplorerLink chainId={record.chain_id} kind="address" value={record.to} short={!full} head={6} tail={4} />;
  if (AMOUNT_FIELDS.has(field)) return <Amount value={v === null ? '' : String(v)} />;
  if (v === null || v === '') return <NoValue />;
  if (TIME_FIELDS.has(field)) return <span className="num">{formatTime(v as number)}</span>;
  if (field === 'type') return <span className={v === 'Deposit' ? 'dir dir-in' : 'dir dir-out'}>{v}</span>;
  if (field === 'status') return <Badge>{String(v)}</Badge>;
  if (field === 'wallet_id')
    return full ? (
      <span>
        <WalletName id={String(v)} /> <span className="mono break muted">{String(v)}</span>
      </span>
    ) : (
      <WalletName id={String(v)} />
    );
  if (ID_FIELDS.has(field) && !full) {
    return (
      <span className="mono" title={String(v)}>
        {shorten(String(v), 8, 4)}
      </span>
    );
  }
  return <span className={full ? 'mono break' : 'mono'}>{String(v)}</span>;
}

/** Column widths of the Transactions table (every field of RECORD_FIELDS has one). The amounts keep room for 18 decimal places. */
const WIDTH: Record<RecordField, string> = {
  wallet_id: '118px',
  type: '90px',
  status: '104px',
  amount: '206px',
  to: '132px',
  fee_ratio: '112px',
  fee_fixed: '112px',
  fee: '150px',
  er: '112px',
  amount_actual: '206px',
  hash: '132px',
  chain_id: '118px',
  token_id: '128px',
  created_at: '152px',
  confirmed_at: '152px',
  completed_at: '152px',
  transaction_id: '118px',
  request_id: 'minmax(140px, 1fr)',
};

/**
 * Which columns there are is RECORD_FIELDS; the table shows first what an accountant scans a ledger
 * by (when, what, how much, of which token), then the rest in the contract's order.
 */
const FIRST: readonly RecordField[] = ['created_at', 'type', 'status', 'amount', 'token_id', 'chain_id', 'to', 'hash'];
const COLUMN_ORDER: readonly RecordField[] = [...FIRST, ...RECORD_FIELDS.filter((f) => !FIRST.includes(f))];

const SORTABLE = new Set<string>(TRANSACTION_SORTS);

/** A sortable column's header: a button that sorts by it, showing the order it is sorted in. */
function SortHeader({ field, sort, onSort }: { field: TransactionSort; sort: TxSort; onSort: (f: TransactionSort) => void }) {
  const active = sort.sort === field;
  const next = active && sort.order === 'desc' ? 'ascending' : 'descending';
  return (
    <button
      type="button"
      className={active ? 'sort-head sort-active' : 'sort-head'}
      onClick={() => onSort(field)}
      // Named by its text, as the column is (getByLabel('Token') finds the filter, not this); the header's aria-sort says the order.
      title={`Sort by ${labelOf(field)}, ${next}`}
      data-testid={`sort-${field}`}
    >
      <FieldName field={field} />
      <span className="sort-mark" aria-hidden="true">
        {active ? (sort.order === 'desc' ? '▼' : '▲') : '↕'}
      </span>
    </button>
  );
}

function columnsOf(sort: TxSort, onSort: (f: TransactionSort) => void): Column<LedgerRecord>[] {
  return COLUMN_ORDER.map((f) => {
    const sortable = SORTABLE.has(f);
    return {
      key: f,
      header: sortable ? <SortHeader field={f as TransactionSort} sort={sort} onSort={onSort} /> : <FieldName field={f} />,
      width: WIDTH[f],
      align: AMOUNT_FIELDS.has(f) ? 'right' : undefined,
      sort: !sortable ? undefined : sort.sort !== f ? 'none' : sort.order === 'asc' ? 'ascending' : 'descending',
      render: (r) => <RecordValue record={r} field={f} />,
    };
  });
}

/** Not part of the record: what this store knows about it. */
const STORE_FIELDS = ['import_id', 'updated_at'] as const satisfies readonly Field[];

function TransactionDetail({ record, onClose }: { record: LedgerRecord; onClose: () => void }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  const row = (f: Field) => (
    <div key={f} className="kv-row">
      <dt>
        <FieldName field={f} />
      </dt>
      <dd>
        <RecordValue record={record} field={f} full />
      </dd>
    </div>
  );
  return (
    <aside className="drawer" aria-label="Transaction detail">
      <header className="drawer-head">
        <h2>Transaction</h2>
        <button type="button" className="btn btn-ghost btn-icon" onClick={onClose} aria-label="Close detail">
          <Icon name="close" />
        </button>
      </header>
      <dl className="kv kv-detail">
        {RECORD_FIELDS.map(row)}
        <div className="kv-group">In this store</div>
        {STORE_FIELDS.map(row)}
      </dl>
    </aside>
  );
}

/** A pause in typing this long runs the search: each keystroke would otherwise ask the service again. */
const SEARCH_DELAY_MS = 250;

function FilterBar() {
  const { filters, set, clear } = useTxFilters();
  const wallets = useReference((s) => s.wallets.data);
  const [search, setSearch] = useState(filters.search);
  const any = Object.values(filters).some(Boolean);
  // The search runs as the user types, once typing pauses (Enter runs it at once).
  useEffect(() => {
    if (search.trim() === filters.search.trim()) return;
    const timer = setTimeout(() => set({ search }), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [search, filters.search, set]);
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
          placeholder={`Find a hash, transaction ID or request ID, or their first ${PARTIAL_SEARCH_MIN} characters`}
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
      <ChainTokenFilter chainId={filters.chain_id} tokenId={filters.token_id} onChange={set} />
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

/** Past this many records the totals wait for a click: summing them holds the service for a moment. */
const AUTO_TOTALS_MAX = 200_000;

/** Amount per token and type under the current filters, exact, with the record count. */
function Totals({ query, total }: { query: ReturnType<typeof toQuery>; total: number }) {
  const key = JSON.stringify(query);
  const [asked, setAsked] = useState<string>();
  const wanted = total <= AUTO_TOTALS_MAX || asked === key;
  const totals = useQuery(wanted && total > 0 ? `totals:${key}` : null, () => call('transactions-totals', query));
  if (total === 0) return null;
  let body;
  if (!wanted)
    body = (
      <button type="button" className="btn btn-small" onClick={() => setAsked(key)}>
        Sum {formatCount(total)} records
      </button>
    );
  else if (totals.error) body = <span className="error-text">Could not sum: {totals.error}</span>;
  else if (!totals.data) body = <span className="muted">Summing…</span>;
  else
    body = (
      <table className="totals-table">
        <thead>
          <tr>
            <th scope="col">
              <FieldName field="token_id" />
            </th>
            <th scope="col">
              <FieldName field="type" />
            </th>
            <th scope="col" className="num">
              Records
            </th>
            <th scope="col" className="num">
              <FieldName field="amount" label="Total amount" />
            </th>
            <th scope="col" className="num">
              <FieldName field="fee" label="Total fee" />
            </th>
          </tr>
        </thead>
        <tbody>
          {totals.data.totals.map((t) => (
            <tr key={`${t.chain_id}|${t.token_id}|${t.type}`} data-testid={`total-${t.token_id}-${t.type}`}>
              <td className="mono">{t.token_id}</td>
              <td>
                <span className={t.type === 'Deposit' ? 'dir dir-in' : 'dir dir-out'}>{t.type}</span>
              </td>
              <td className="num">
                {formatCount(t.count)}
                {t.fee_only > 0 && (
                  <span className="muted small" title="Failed withdrawals that reached the chain: their fee is in the total fee">
                    {' '}
                    + {formatCount(t.fee_only)} failed, fee only
                  </span>
                )}
              </td>
              <td className="num">
                <Amount value={t.amount} />
              </td>
              <td className="num">
                <Amount value={t.fee} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  return (
    <details className="tx-totals" open>
      <summary data-testid="totals-caption">{totalsCaption(query.status, totals.data?.left_out)}</summary>
      {body}
    </details>
  );
}

const countText = (n: number, status: string) => `${formatCount(n)} ${status}`;

/** The rule, as a sentence. */
const RULE = FAILED_FEE_RULE.charAt(0).toUpperCase() + FAILED_FEE_RULE.slice(1);

/**
 * What the totals sum, said where they are shown, by the rule Balances count with: Failed and
 * Rejected records moved no amount, so they are left out unless the Status filter asks for them,
 * but a failed withdrawal that reached the chain paid its fee, which is in the total fee.
 */
function totalsCaption(status: string | undefined, leftOut: LedgerTotals['left_out'] | undefined): string {
  if (status !== undefined && (UNSUMMED_STATUSES as readonly string[]).includes(status))
    return `Totals per token of the ${status} records these filters select, amounts and fees as recorded (the Status filter asks for them; Balances count none of their amounts)`;
  const base = 'Totals per token for these filters';
  if (status !== undefined || leftOut === undefined) return base;
  const n = leftOut.reduce((sum, l) => sum + l.count, 0);
  const without = n === 0 ? '' : `, without ${leftOut.map((l) => countText(l.count, l.status)).join(' and ')} record${n === 1 ? '' : 's'}`;
  return `${base}${without}. ${RULE}, as Balances and the reconciliation report count them (filter Status to total failed records as recorded).`;
}

/** Save the current filters' records, in the current sort, as CSV or XLSX. */
function ExportButtons({ query, sort, total }: { query: ReturnType<typeof toQuery>; sort: TxSort; total: number | undefined }) {
  const [busy, setBusy] = useState<ReportFormat>();
  const [error, setError] = useState<string>();
  const tooMany = total !== undefined && total > MAX_EXPORT_RECORDS;
  const save = async (format: ReportFormat) => {
    setBusy(format);
    setError(undefined);
    try {
      downloadFile(await call('ledger-export-file', { ...query, ...sort, format }));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(undefined);
    }
  };
  const title = tooMany
    ? `Export holds at most ${formatCount(MAX_EXPORT_RECORDS)} records: narrow the filters (by wallet, chain, token or dates) and export each part`
    : undefined;
  return (
    <span className="tx-export">
      {error && <span className="error-text">{error}</span>}
      {(['csv', 'xlsx'] as const).map((format) => (
        <button
          key={format}
          type="button"
          className="btn btn-small"
          disabled={busy !== undefined || !total || tooMany}
          title={title}
          onClick={() => void save(format)}
        >
          <Icon name="download" size={14} />
          {busy === format ? 'Exporting…' : `Export ${format.toUpperCase()}`}
        </button>
      ))}
    </span>
  );
}

export function TransactionsTab({ onImport }: { onImport: () => void }) {
  const filters = useTxFilters((s) => s.filters);
  const sort = useTxFilters((s) => s.sort);
  const sortBy = useTxFilters((s) => s.sortBy);
  const loadWallets = useReference((s) => s.loadWallets);
  const query = toQuery(filters);
  const columns = useMemo(() => columnsOf(sort, sortBy), [sort, sortBy]);
  const othersChanged = useChangeKey('imports');
  const rows = usePagedRows(JSON.stringify({ query, sort, othersChanged }), (page, page_size) =>
    call('transactions-list', { ...query, ...sort, page, page_size }),
  );
  const [selected, setSelected] = useState<number>();
  const [open, setOpen] = useState<LedgerRecord>();
  const [checking, setChecking] = useState(false);
  const filtered = Object.values(filters).some(Boolean);

  useEffect(() => loadWallets(true), [loadWallets]);

  let body;
  if (rows.error) body = <ErrorBox message={rows.error} onRetry={rows.reload} title="Could not load the transactions" />;
  else if (rows.total === undefined) body = <Loading what="transactions" />;
  else if (rows.total === 0)
    body = filtered ? (
      <Empty title="No transactions match these filters">
        Search finds a hash, transaction ID or request ID, and from {PARTIAL_SEARCH_MIN} characters those that begin with what is typed (a
        request ID as written). Clear the filters to see everything.
      </Empty>
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
        <span data-testid="tx-count">
          {rows.total === undefined ? '…' : `${formatCount(rows.total)} transaction${rows.total === 1 ? '' : 's'}`}
        </span>
        <span className="muted">Double-click or Enter opens a row · ↑↓ PgUp PgDn Home End move</span>
        <ExportButtons query={query} sort={sort} total={rows.total} />
        <button type="button" className="btn btn-small" onClick={() => setChecking(true)} disabled={!rows.total}>
          Check against the chain
        </button>
      </div>
      {checking && (
        <ChainCheckDialog
          scope={{
            ...(filters.wallet_id ? { wallet_id: filters.wallet_id } : {}),
            ...(filters.from ? { from: filters.from } : {}),
            ...(filters.to ? { to: filters.to } : {}),
          }}
          onClose={() => setChecking(false)}
        />
      )}
      {rows.total !== undefined && <Totals query={query} total={rows.total} />}
      <div className="tx-body">
        {body}
        {open && <TransactionDetail record={open} onClose={() => setOpen(undefined)} />}
      </div>
    </div>
  );
}
