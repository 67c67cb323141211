import { ChainTokenFilter } from '../../components/chain-token-filter';
import { useEffect, useState } from 'react';
import { FLAG_FIELDS, type FlagField } from '../../../../shared/reconcile';
import { EXCEPTION_KINDS, EXCEPTION_KIND_LABELS, type ExceptionKind } from '../../../../shared/tickets';
import { Icon } from '../../components/icons';
import { Segmented } from '../../components/ui';
import { labelOf } from '../../lib/fields';
import { shorten } from '../../lib/format';
import { useReference } from '../../stores/reference';
import { narrowed, useQueue, type QueueFilters, type StatusFilter } from './filters';

const TYPING_PAUSE_MS = 300;

/** A text filter that reaches the query once typing pauses, so each key press does not ask the service. */
function useDebounced(key: 'search' | 'amount_min' | 'amount_max' | 'older_than_days') {
  const value = useQueue((s) => s.filters[key]);
  const setFilters = useQueue((s) => s.setFilters);
  const [text, setText] = useState(value);
  const [seen, setSeen] = useState(value);
  // Cleared from outside (Clear filters): the box follows.
  if (value !== seen) {
    setSeen(value);
    setText(value);
  }
  useEffect(() => {
    if (text === value) return;
    const timer = window.setTimeout(() => setFilters({ [key]: text } as Partial<QueueFilters>), TYPING_PAUSE_MS);
    return () => window.clearTimeout(timer);
  }, [text, value, key, setFilters]);
  return [text, setText] as const;
}

const STATUS_OPTIONS: { key: StatusFilter; label: string }[] = [
  { key: 'Pending', label: 'Pending' },
  { key: 'Resolved', label: 'Resolved' },
  { key: 'Dismissed', label: 'Dismissed' },
  { key: 'all', label: 'All' },
];

export function FilterBar() {
  const filters = useQueue((s) => s.filters);
  const setFilters = useQueue((s) => s.setFilters);
  const clearFilters = useQueue((s) => s.clearFilters);
  const wallets = useReference((s) => s.wallets.data);
  const loadChains = useReference((s) => s.loadChains);
  const [search, setSearch] = useDebounced('search');
  const [min, setMin] = useDebounced('amount_min');
  const [max, setMax] = useDebounced('amount_max');
  const [older, setOlder] = useDebounced('older_than_days');
  useEffect(() => loadChains(), [loadChains]);

  return (
    <div className="toolbar tq-filters" role="search" aria-label="Filter the queue">
      <div className="search">
        <Icon name="search" size={15} />
        <input
          aria-label="Search tickets"
          placeholder="Search a hash, an ID, words…"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          spellCheck={false}
          maxLength={200}
        />
      </div>
      <Segmented label="Status" value={filters.status} onChange={(status) => setFilters({ status })} options={STATUS_OPTIONS} />
      <select aria-label="Kind" value={filters.kind} onChange={(e) => setFilters({ kind: e.target.value as ExceptionKind | '' })}>
        <option value="">All kinds</option>
        {EXCEPTION_KINDS.map((k) => (
          <option key={k} value={k}>
            {EXCEPTION_KIND_LABELS[k]}
          </option>
        ))}
      </select>
      <select aria-label="Field at fault" value={filters.field} onChange={(e) => setFilters({ field: e.target.value as FlagField | '' })}>
        <option value="">Any field</option>
        {FLAG_FIELDS.map((f) => (
          <option key={f} value={f}>
            {labelOf(f)} ({f})
          </option>
        ))}
      </select>
      <select aria-label="Wallet" value={filters.wallet_id} onChange={(e) => setFilters({ wallet_id: e.target.value })}>
        <option value="">All wallets</option>
        {(wallets ?? []).map((w) => (
          <option key={w.wallet_id} value={w.wallet_id}>
            {w.name || shorten(w.wallet_id, 8, 4)}
          </option>
        ))}
      </select>
      <ChainTokenFilter chainId={filters.chain_id} tokenId={filters.token_id} onChange={setFilters} />
      <label className="inline-label">
        Amount
        <input
          className="tq-amount mono"
          aria-label="Amount at least"
          placeholder="min"
          inputMode="decimal"
          value={min}
          onChange={(e) => setMin(e.target.value)}
        />
        –
        <input
          className="tq-amount mono"
          aria-label="Amount at most"
          placeholder="max"
          inputMode="decimal"
          value={max}
          onChange={(e) => setMax(e.target.value)}
        />
      </label>
      <label className="inline-label">
        Older than
        <input
          className="tq-days"
          aria-label="Opened at least this many days ago"
          inputMode="numeric"
          value={older}
          onChange={(e) => setOlder(e.target.value)}
        />
        days
      </label>
      {narrowed(filters) && (
        <button type="button" className="btn btn-ghost btn-small" onClick={clearFilters}>
          Clear filters
        </button>
      )}
    </div>
  );
}
