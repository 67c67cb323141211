import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { create } from 'zustand';
import { FLAG_FIELDS, type FlagField } from '../../../shared/reconcile';
import type { TicketDetail, TicketStatus, TicketSummary } from '../../../shared/tickets';
import { call, errorText } from '../api';
import { ExplorerLink } from '../components/links';
import { Amount, Badge, Empty, ErrorBox, FieldName, Loading, NoValue, PageHeader, Pager, Segmented } from '../components/ui';
import { WalletName } from '../components/wallet-name';
import { formatTime, relativeTime, shorten } from '../lib/format';
import { useQuery } from '../lib/use-query';
import { useReference } from '../stores/reference';
import { useRoute } from '../stores/route';
import { claimedDisplay, claimText, recordedText } from './reconcile/claims';

type StatusFilter = TicketStatus | 'all';
const PAGE = 50;

const useTicketFilters = create<{
  status: StatusFilter;
  wallet: string;
  page: number;
  set: (p: Partial<{ status: StatusFilter; wallet: string; page: number }>) => void;
}>((set) => ({
  status: 'Pending',
  wallet: '',
  page: 1,
  set: (p) => set(p),
}));

const ID_FIELDS = ['transaction_id', 'hash', 'request_id'] as const;
const AMOUNTS = new Set<string>(['amount', 'fee', 'amount_actual']);

function isTyping(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  return !!t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
}

function QueueItem({ t, selected, onPick }: { t: TicketSummary; selected: boolean; onPick: () => void }) {
  return (
    <li>
      <button
        type="button"
        className={selected ? 'queue-item queue-selected' : 'queue-item'}
        onClick={onPick}
        aria-current={selected ? 'true' : undefined}
        data-ticket={t.ticket_id}
      >
        <div className="queue-top">
          <Badge>{t.status}</Badge>
          <span className="mono muted small" title={t.transaction_id}>
            tx {shorten(t.transaction_id, 8, 0)}
          </span>
          <span className="muted small queue-when" title={`${formatTime(t.updated_at)} UTC`}>
            {relativeTime(t.updated_at)}
          </span>
        </div>
        <div className="chips">
          {t.abnormals
            .split(',')
            .filter(Boolean)
            .map((f) => (
              <span key={f} className="chip chip-bad mono">
                {f}
              </span>
            ))}
        </div>
      </button>
    </li>
  );
}

function Comparison({ d }: { d: TicketDetail }) {
  const abnormal = new Set<string>(d.abnormal_fields);
  const rec = d.record;
  const chain = rec?.chain_id ?? claimText(d.claimed.chain_id);
  // The fields at fault come first, so the reason for the ticket is in view without scrolling.
  const all = [...ID_FIELDS, ...FLAG_FIELDS];
  const order = [...all.filter((f) => abnormal.has(f)), ...all.filter((f) => !abnormal.has(f))];
  const recordedOf = (f: string): ReactNode => {
    if (!rec) return <span className="muted">record no longer in the ledger</span>;
    if (f === 'hash') return <ExplorerLink chainId={rec.chain_id} kind="tx" value={rec.hash} short={false} />;
    if (f === 'to') return <ExplorerLink chainId={rec.chain_id} kind="address" value={rec.to} short={false} />;
    if (f === 'transaction_id' || f === 'request_id') return rec[f] ? <span className="mono">{rec[f]}</span> : <NoValue />;
    const text = recordedText(rec, f as FlagField, d.claimed);
    return AMOUNTS.has(f) ? <Amount value={text} /> : text ? <span className="mono">{text}</span> : <NoValue />;
  };
  const claimedOf = (f: string): ReactNode => {
    const text = FLAG_FIELDS.includes(f as FlagField) ? claimedDisplay(d.claimed, f as FlagField) : claimText(d.claimed[f]);
    if (!text) return <span className="muted">not given</span>;
    if (f === 'to' && chain) return <ExplorerLink chainId={chain} kind="address" value={text} short={false} />;
    return AMOUNTS.has(f) ? <Amount value={text} /> : <span className="mono break">{text}</span>;
  };
  return (
    <table className="table compare" aria-label="Claimed and recorded">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Claimed in the books</th>
          <th scope="col">Recorded in the ledger</th>
        </tr>
      </thead>
      <tbody>
        {order.map((f) => (
          <tr key={f} className={abnormal.has(f) ? 'abnormal' : undefined}>
            <th scope="row">
              <FieldName field={f} />
              {abnormal.has(f) && <span className="chip chip-bad">differs</span>}
            </th>
            <td>{claimedOf(f)}</td>
            <td>{recordedOf(f)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Actions({ d, onChanged }: { d: TicketDetail; onChanged: (d: TicketDetail) => void }) {
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const move = async (to: TicketStatus) => {
    setBusy(true);
    setError(undefined);
    try {
      const next = await call('ticket-transition', { ticket_id: d.ticket_id, to, ...(note.trim() ? { note: note.trim() } : {}) });
      setNote('');
      onChanged(next);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="ticket-actions">
      <label htmlFor="ticket-note" className="sr-only">
        Note
      </label>
      <textarea
        id="ticket-note"
        rows={2}
        value={note}
        onChange={(e) => setNote(e.target.value)}
        placeholder="Note for the audit trail (optional): what you checked, who agreed…"
        maxLength={2000}
      />
      <div className="row-actions">
        {d.status === 'Pending' ? (
          <>
            <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void move('Resolved')}>
              Resolve
            </button>
            <button type="button" className="btn" disabled={busy} onClick={() => void move('Dismissed')}>
              Dismiss
            </button>
          </>
        ) : (
          <button type="button" className="btn" disabled={busy} onClick={() => void move('Pending')}>
            Reopen
          </button>
        )}
        {error && <span className="error-text">{error}</span>}
      </div>
    </div>
  );
}

function Detail({ ticketId, onChanged }: { ticketId: string; onChanged: () => void }) {
  const go = useRoute((s) => s.go);
  const q = useQuery(ticketId, () => call('ticket-get', { ticket_id: ticketId }));
  const [override, setOverride] = useState<TicketDetail>();
  const d = override?.ticket_id === ticketId && q.data && override.updated_at >= q.data.updated_at ? override : q.data;
  if (q.error) return <ErrorBox message={q.error} onRetry={q.reload} title="Could not load the ticket" />;
  if (!d || d.ticket_id !== ticketId) return <Loading what="the ticket" />;
  return (
    <article className="ticket" aria-label={`Ticket ${d.ticket_id}`} data-testid="ticket-detail">
      <header className="ticket-head">
        <div>
          <h2>
            Ticket <span className="mono">{shorten(d.ticket_id, 8, 0)}</span> <Badge>{d.status}</Badge>
          </h2>
          <p className="muted small">
            opened {formatTime(d.created_at)} UTC · updated {formatTime(d.updated_at)} UTC · wallet <WalletName id={d.wallet_id} />
            {d.run_id && (
              <>
                {' '}
                ·{' '}
                <a
                  href={`#/reconcile/run/${d.run_id}`}
                  onClick={(e) => {
                    e.preventDefault();
                    go({ screen: 'reconcile', sub: 'run', id: d.run_id! });
                  }}
                >
                  the run
                </a>
              </>
            )}
          </p>
        </div>
      </header>
      <p className="ticket-desc">{d.desc}</p>
      <Actions
        d={d}
        onChanged={(next) => {
          setOverride(next);
          onChanged();
        }}
      />
      <Comparison d={d} />
      <section className="events" aria-labelledby="ticket-history">
        <h3 id="ticket-history">History</h3>
        <ol>
          {[...d.events].reverse().map((e, i) => (
            <li key={i}>
              <span className="num muted">{formatTime(e.at)}</span>
              <span>
                {e.kind === 'opened'
                  ? 'Opened'
                  : e.kind === 'updated'
                    ? 'Updated by a new mismatching claim'
                    : `${e.from_status ?? ''} → ${e.to_status ?? ''}`}
                <span className="muted"> by {e.actor}</span>
                {e.note && <q className="note-text">{e.note}</q>}
              </span>
            </li>
          ))}
        </ol>
      </section>
    </article>
  );
}

export function TicketsScreen() {
  const { status, wallet, page, set } = useTicketFilters();
  const { sub, id } = useRoute();
  const go = useRoute((s) => s.go);
  const wallets = useReference((s) => s.wallets.data);
  const loadWallets = useReference((s) => s.loadWallets);
  const list = useQuery(`${status}:${wallet}:${page}`, () =>
    call('tickets-list', { page, page_size: PAGE, ...(status !== 'all' ? { status } : {}), ...(wallet ? { wallet_id: wallet } : {}) }),
  );
  const tickets = useMemo(() => list.data?.list ?? [], [list.data]);
  const selectedId = sub === 'ticket' ? id : tickets[0]?.ticket_id;
  const index = tickets.findIndex((t) => t.ticket_id === selectedId);

  useEffect(() => loadWallets(), [loadWallets]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e) || e.altKey || e.ctrlKey || e.metaKey || tickets.length === 0) return;
      const step = e.key === 'j' || e.key === 'ArrowDown' ? 1 : e.key === 'k' || e.key === 'ArrowUp' ? -1 : 0;
      if (!step) return;
      e.preventDefault();
      const next = tickets[Math.max(0, Math.min(tickets.length - 1, (index < 0 ? (step > 0 ? -1 : tickets.length) : index) + step))];
      if (next) {
        go({ screen: 'tickets', sub: 'ticket', id: next.ticket_id }, { replace: true });
        document.querySelector(`[data-ticket="${next.ticket_id}"]`)?.scrollIntoView({ block: 'nearest' });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [tickets, index, go]);

  return (
    <div className="screen screen-full">
      <PageHeader
        title="Tickets"
        subtitle="Every mismatch between the books and the ledger opens a ticket. Step with j / k or the arrow keys."
      />
      <div className="tickets">
        <section className="queue" aria-label="Ticket queue">
          <div className="queue-filters">
            <Segmented
              label="Status"
              value={status}
              onChange={(s) => set({ status: s, page: 1 })}
              options={[
                { key: 'Pending', label: 'Pending' },
                { key: 'Resolved', label: 'Resolved' },
                { key: 'Dismissed', label: 'Dismissed' },
                { key: 'all', label: 'All' },
              ]}
            />
            <select aria-label="Wallet" value={wallet} onChange={(e) => set({ wallet: e.target.value, page: 1 })}>
              <option value="">All wallets</option>
              {(wallets ?? []).map((w) => (
                <option key={w.wallet_id} value={w.wallet_id}>
                  {w.name || shorten(w.wallet_id, 8, 4)}
                </option>
              ))}
            </select>
          </div>
          {list.error ? (
            <ErrorBox message={list.error} onRetry={list.reload} title="Could not load the tickets" />
          ) : !list.data ? (
            <Loading what="tickets" />
          ) : tickets.length === 0 ? (
            <Empty title={status === 'all' ? 'No tickets' : `No ${status.toLowerCase()} tickets`}>
              {status === 'Pending'
                ? 'Nothing waits for review. Mismatches found by a reconciliation run appear here.'
                : 'Try another status or wallet.'}
            </Empty>
          ) : (
            <>
              <ul className={list.loading ? 'queue-list is-loading' : 'queue-list'} data-testid="ticket-queue">
                {tickets.map((t) => (
                  <QueueItem
                    key={t.ticket_id}
                    t={t}
                    selected={t.ticket_id === selectedId}
                    onPick={() => go({ screen: 'tickets', sub: 'ticket', id: t.ticket_id }, { replace: true })}
                  />
                ))}
              </ul>
              <Pager page={page} pageSize={PAGE} total={list.data.total} onPage={(p) => set({ page: p })} busy={list.loading} />
            </>
          )}
        </section>
        <section className="ticket-pane">
          {selectedId ? (
            <Detail key={selectedId} ticketId={selectedId} onChanged={list.reload} />
          ) : (
            <Empty title="No ticket selected">Pick a ticket from the queue.</Empty>
          )}
        </section>
      </div>
    </div>
  );
}
