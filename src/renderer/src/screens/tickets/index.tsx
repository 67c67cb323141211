import { useEffect, useMemo, useState } from 'react';
import type { TicketSeen, TicketStatus, TicketSummary } from '../../../../shared/tickets';
import { call, errorCode, errorText, TICKET_CHANGED } from '../../api';
import { Empty, ErrorBox, Loading, PageHeader, Pager } from '../../components/ui';
import { formatCount } from '../../lib/format';
import { useQuery } from '../../lib/use-query';
import { useReference } from '../../stores/reference';
import { useRoute } from '../../stores/route';
import { useChangeKey } from '../../stores/changes';
import { useAppUser } from '../../stores/user';
import { ChangedBanner, Detail } from './detail';
import { FilterBar } from './filter-bar';
import { filterQuery, narrowed, PAGE_SIZE, useQueue, type TicketSort } from './filters';
import { QueueTable } from './queue-table';
import { ReasonDialog, ticketsWord } from './reason-dialog';
import './tickets.css';

/** tickets-transition takes at most this many at once. */
const MAX_BULK = 10_000;

/** The tickets chosen for a bulk change, as each was shown when chosen (sent back as `seen`). */
type Chosen = ReadonlyMap<string, TicketSeen>;

const seenOf = (t: TicketSummary): TicketSeen => ({ status: t.status, version: t.version });

/** Keys typed into a field are the field's; a ticked box keeps the queue's keys working. */
function isTyping(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  if (!t) return false;
  if (t instanceof HTMLInputElement) return t.type !== 'checkbox' && t.type !== 'radio';
  return t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable;
}

/** Every ticket the filters match, page by page, for "choose all matching". */
async function allMatching(query: ReturnType<typeof filterQuery>, sort: { sort: TicketSort; order: 'asc' | 'desc' }): Promise<Chosen> {
  const out = new Map<string, TicketSeen>();
  for (let page = 1; ; page++) {
    const r = await call('tickets-list', { ...query, ...sort, page, page_size: PAGE_SIZE });
    for (const t of r.list) out.set(t.ticket_id, seenOf(t));
    if (r.list.length < PAGE_SIZE || out.size >= r.total) return out;
  }
}

/** Which bulk changes the chosen tickets allow: resolve and dismiss from Pending, reopen from the others. */
function allowed(chosen: Chosen): { close: boolean; reopen: boolean } {
  const statuses = new Set([...chosen.values()].map((s) => s.status));
  return { close: statuses.size === 1 && statuses.has('Pending'), reopen: statuses.size > 0 && !statuses.has('Pending') };
}

function BulkBar({ chosen, onStart, onClear }: { chosen: Chosen; onStart: (to: TicketStatus) => void; onClear: () => void }) {
  const user = useAppUser((s) => s.name);
  const go = useRoute((s) => s.go);
  const can = allowed(chosen);
  const mixed = !can.close && !can.reopen && chosen.size > 0;
  return (
    <div className="tq-bulk" role="toolbar" aria-label="Bulk actions">
      <span className="tq-bulk-count" data-testid="tq-chosen">
        {chosen.size === 0 ? 'Tick tickets to work them together' : <strong>{ticketsWord(chosen.size)} chosen</strong>}
      </span>
      {chosen.size > 0 && (
        <>
          <button type="button" className="btn btn-small btn-primary" disabled={!can.close} onClick={() => onStart('Resolved')}>
            Resolve…
          </button>
          <button type="button" className="btn btn-small" disabled={!can.close} onClick={() => onStart('Dismissed')}>
            Dismiss…
          </button>
          <button type="button" className="btn btn-small" disabled={!can.reopen} onClick={() => onStart('Pending')}>
            Reopen…
          </button>
          <button type="button" className="btn btn-small btn-ghost" onClick={onClear}>
            Clear choice
          </button>
          {mixed && <span className="muted small">Pending and closed tickets are chosen together: choose one or the other.</span>}
        </>
      )}
      <span className="tq-actor muted small" data-testid="acting-as">
        {user ? (
          <>
            Acting as <strong>{user}</strong>
          </>
        ) : (
          <>
            No name set (asked at the first resolve or dismiss):{' '}
            <a
              href="#/settings"
              onClick={(e) => {
                e.preventDefault();
                go({ screen: 'settings' });
              }}
            >
              set it
            </a>
          </>
        )}
      </span>
    </div>
  );
}

/** Offered once the whole page is chosen and more tickets match: choose all of them (up to what one change takes). */
function AllMatching({
  total,
  chosen,
  pageIds,
  onChooseAll,
}: {
  total: number;
  chosen: Chosen;
  pageIds: string[];
  onChooseAll: () => Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const pageChosen = pageIds.length > 0 && pageIds.every((id) => chosen.has(id));
  if (!pageChosen || total <= pageIds.length) return null;
  if (chosen.size >= total) return <p className="tq-all note">All {ticketsWord(total)} that match are chosen.</p>;
  return (
    <p className="tq-all note">
      The {ticketsWord(pageIds.length)} on this page are chosen.{' '}
      {total > MAX_BULK ? (
        <span className="muted">
          {formatCount(total)} match; one change takes at most {formatCount(MAX_BULK)}: narrow the filters.
        </span>
      ) : (
        <button
          type="button"
          className="btn btn-small btn-ghost"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            setError(undefined);
            onChooseAll()
              .catch((err: unknown) => setError(errorText(err)))
              .finally(() => setBusy(false));
          }}
        >
          {busy ? 'Choosing…' : `Choose all ${ticketsWord(total)} that match`}
        </button>
      )}
      {error && <span className="error-text"> {error}</span>}
    </p>
  );
}

export function TicketsScreen() {
  const { filters, sort, order, page, sortBy, setPage } = useQueue();
  const { sub, id } = useRoute();
  const go = useRoute((s) => s.go);
  const loadWallets = useReference((s) => s.loadWallets);
  const loadUser = useAppUser((s) => s.load);
  const query = useMemo(() => filterQuery(filters), [filters]);
  const queryKey = JSON.stringify([query, sort, order]);
  // Others resolving tickets, a run opening them, an undone import dismissing them: the queue reloads.
  // A check against the chain opens and settles tickets too.
  const othersChanged = useChangeKey('tickets', 'runs', 'imports', 'checks');
  const list = useQuery(`${queryKey}:${page}:${othersChanged}`, () =>
    call('tickets-list', { ...query, sort, order, page, page_size: PAGE_SIZE }),
  );
  const tickets = useMemo(() => list.data?.list ?? [], [list.data]);
  const openId = sub === 'ticket' && id ? id : tickets[0]?.ticket_id;
  const index = tickets.findIndex((t) => t.ticket_id === openId);

  const [chosen, setChosen] = useState<Chosen>(new Map());
  const [anchor, setAnchor] = useState<number>();
  const [bulkTo, setBulkTo] = useState<TicketStatus>();
  const [version, setVersion] = useState(0);
  /** A bulk change refused because tickets changed since they were chosen: the service's sentence. */
  const [refused, setRefused] = useState<string>();
  // Another filter or order is another list: what was chosen in the old one is let go.
  const [chosenFor, setChosenFor] = useState(queryKey);
  if (chosenFor !== queryKey) {
    setChosenFor(queryKey);
    setChosen(new Map());
    setAnchor(undefined);
  }

  useEffect(() => loadWallets(), [loadWallets]);
  useEffect(() => loadUser(), [loadUser]);

  const open = (t: TicketSummary) => go({ screen: 'tickets', sub: 'ticket', id: t.ticket_id }, { replace: true });
  const check = (i: number, on: boolean, range: boolean) => {
    const from = range && anchor !== undefined ? Math.min(anchor, i) : i;
    const to = range && anchor !== undefined ? Math.max(anchor, i) : i;
    const next = new Map(chosen);
    for (const t of tickets.slice(from, to + 1)) {
      if (on) next.set(t.ticket_id, seenOf(t));
      else next.delete(t.ticket_id);
    }
    setChosen(next);
    setAnchor(i);
  };
  const checkPage = (on: boolean) => {
    const next = new Map(chosen);
    for (const t of tickets) {
      if (on) next.set(t.ticket_id, seenOf(t));
      else next.delete(t.ticket_id);
    }
    setChosen(next);
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e) || e.altKey || e.ctrlKey || e.metaKey || tickets.length === 0 || document.querySelector('dialog[open]')) return;
      if (e.key === 'x' && index >= 0) {
        e.preventDefault();
        const t = tickets[index]!;
        setChosen((c) => {
          const next = new Map(c);
          if (next.has(t.ticket_id)) next.delete(t.ticket_id);
          else next.set(t.ticket_id, seenOf(t));
          return next;
        });
        setAnchor(index);
        return;
      }
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

  const changed = () => {
    list.reload();
    setVersion((v) => v + 1);
  };

  let queue;
  if (list.error) queue = <ErrorBox message={list.error} onRetry={list.reload} title="Could not load the tickets" />;
  else if (!list.data) queue = <Loading what="tickets" />;
  else if (list.data.total === 0)
    queue = narrowed(filters) ? (
      <Empty title="No tickets match these filters">Clear the filters, or try another status.</Empty>
    ) : (
      <Empty title={filters.status === 'all' ? 'No tickets' : `No ${filters.status.toLowerCase()} tickets`}>
        {filters.status === 'Pending'
          ? 'Nothing waits for review. What a reconciliation run finds (Mismatched, Not in ledger, Not in books, Duplicate) appears here.'
          : 'Try another status.'}
      </Empty>
    );
  else
    queue = (
      <>
        <AllMatching
          total={list.data.total}
          chosen={chosen}
          pageIds={tickets.map((t) => t.ticket_id)}
          onChooseAll={async () => setChosen(await allMatching(query, { sort, order }))}
        />
        <QueueTable
          tickets={tickets}
          openId={openId}
          checked={chosen}
          onOpen={open}
          onCheck={check}
          onCheckPage={checkPage}
          sort={sort}
          order={order}
          onSort={sortBy}
          busy={list.loading}
        />
        <Pager page={page} pageSize={PAGE_SIZE} total={list.data.total} onPage={setPage} busy={list.loading} />
      </>
    );

  return (
    <div className="screen screen-full">
      <PageHeader
        title="Tickets"
        subtitle="Every exception reconciliation found, of every kind, to work through. j / k or ↑ ↓ step, x ticks."
      />
      <FilterBar />
      <BulkBar chosen={chosen} onStart={setBulkTo} onClear={() => setChosen(new Map())} />
      {refused && <ChangedBanner text={refused} onClose={() => setRefused(undefined)} />}
      <div className="tq-layout">
        <section className="tq-queue" aria-label="Ticket queue">
          {queue}
        </section>
        <section className="tq-detail" aria-label="Ticket detail">
          {openId ? (
            <Detail key={openId} ticketId={openId} version={`${version}:${othersChanged}`} onChanged={list.reload} />
          ) : (
            list.data && list.data.total > 0 && <Empty title="No ticket open">Pick a ticket from the queue.</Empty>
          )}
        </section>
      </div>
      {bulkTo && (
        <ReasonDialog
          count={chosen.size}
          from={[...new Set([...chosen.values()].map((s) => s.status))]}
          to={bulkTo}
          onClose={() => setBulkTo(undefined)}
          apply={async (note) => {
            setRefused(undefined);
            try {
              const seen = Object.fromEntries(chosen);
              await call('tickets-transition', { ticket_ids: [...chosen.keys()], to: bulkTo, seen, ...(note ? { note } : {}) });
            } catch (err) {
              if (errorCode(err) !== TICKET_CHANGED) throw err;
              // Nothing was changed: the queue as it stands now, to choose again from.
              setRefused(errorText(err));
            }
            setChosen(new Map());
            changed();
          }}
        />
      )}
    </div>
  );
}
