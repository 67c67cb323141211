import { useState, type ReactNode } from 'react';
import { FLAG_FIELDS, type FlagField } from '../../../../shared/reconcile';
import { EXCEPTION_KIND_LABELS, type TicketDetail, type TicketEvent, type TicketStatus } from '../../../../shared/tickets';
import { call } from '../../api';
import { ExplorerLink } from '../../components/links';
import { Amount, Badge, ErrorBox, FieldName, Loading, NoValue } from '../../components/ui';
import { WalletName } from '../../components/wallet-name';
import { formatTime, shorten } from '../../lib/format';
import { useQuery } from '../../lib/use-query';
import { useRoute } from '../../stores/route';
import { claimedDisplay, claimText, recordedText } from '../reconcile/claims';
import { ReasonDialog } from './reason-dialog';

const ID_FIELDS = ['transaction_id', 'hash', 'request_id'] as const;
const AMOUNTS = new Set<string>(['amount', 'fee', 'amount_actual']);
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** Which sides an exception of each kind has: a mismatch and a duplicate both, the others one. */
const SIDES: Record<TicketDetail['kind'], { claim: boolean; record: boolean }> = {
  mismatch: { claim: true, record: true },
  duplicate: { claim: true, record: true },
  not_in_ledger: { claim: true, record: false },
  not_in_books: { claim: false, record: true },
  balance: { claim: false, record: false },
};

/** The claim beside the record, field by field; the fields at fault first and marked. */
function Comparison({ d }: { d: TicketDetail }) {
  const abnormal = new Set<string>(d.abnormal_fields);
  const sides = SIDES[d.kind];
  const rec = d.record;
  const chain = rec?.chain_id ?? claimText(d.claimed.chain_id);
  const all = [...ID_FIELDS, ...FLAG_FIELDS];
  const order = [...all.filter((f) => abnormal.has(f)), ...all.filter((f) => !abnormal.has(f))];
  const recordedOf = (f: string): ReactNode => {
    if (!rec) return <NoValue />;
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
  // The side an exception lacks is one cell down the whole column, saying so.
  const missing = (what: 'claim' | 'record') => (
    <td rowSpan={order.length} className="compare-missing">
      {what === 'record' ? (
        <>
          <strong>No record</strong>
          <span>Nothing in the ledger has this claim’s transaction ID, hash or request ID.</span>
        </>
      ) : (
        <>
          <strong>No claim</strong>
          <span>The books do not mention this record.</span>
        </>
      )}
    </td>
  );
  const recordGone = sides.record && !rec;
  return (
    <table className="table compare" aria-label="Claimed and recorded">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Claimed in the books{typeof d.claimed.books_row === 'number' ? ` (row ${d.claimed.books_row})` : ''}</th>
          <th scope="col">Recorded in the ledger{recordGone ? ' (no longer there)' : ''}</th>
        </tr>
      </thead>
      <tbody>
        {order.map((f, i) => (
          <tr key={f} className={abnormal.has(f) ? 'abnormal' : undefined}>
            <th scope="row">
              <FieldName field={f} />
              {abnormal.has(f) && <span className="chip chip-bad">differs</span>}
            </th>
            {sides.claim ? <td>{claimedOf(f)}</td> : i === 0 && missing('claim')}
            {sides.record ? <td>{recordedOf(f)}</td> : i === 0 && missing('record')}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** How a balance check's figures are named on the screen (the key stays beside the words). */
const FIGURE_LABELS: Record<string, string> = {
  wallet_id: 'Wallet',
  chain_id: 'Chain ID',
  token_id: 'Token ID',
  at: 'Balance at (UTC)',
  at_text: 'Date as entered',
  time_zone: 'Time zone',
  statement_balance: 'Statement balance',
  ledger_balance: 'Ledger balance',
  places: 'Decimal places',
  ledger_rounded: 'Ledger, rounded',
  difference: 'Difference',
  rule: 'Rule',
};

/** A balance difference: the figures the check kept, in words; moments as dates and times, not Unix milliseconds. */
function Figures({ claimed }: { claimed: Record<string, unknown> }) {
  const entries = Object.entries(claimed);
  if (entries.length === 0) return <p className="muted">The check kept no figures.</p>;
  const valueOf = (k: string, v: unknown): ReactNode => {
    const text = claimText(v);
    if (k === 'at' && /^-?\d+$/.test(text)) return <span className="num">{formatTime(Number(text))} UTC</span>;
    if (k === 'wallet_id' && text) return <WalletName id={text} />;
    if (DECIMAL.test(text) && /amount|balance|difference|total|rounded/.test(k)) return <Amount value={text} />;
    return <span className={k === 'rule' ? 'break' : 'mono break'}>{text}</span>;
  };
  return (
    <table className="table compare" aria-label="Balance figures">
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <th scope="row">
              <FieldName field={k} label={FIGURE_LABELS[k]} />
            </th>
            <td>{valueOf(k, v)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function eventText(e: TicketEvent): string {
  if (e.kind === 'opened') return 'Opened';
  if (e.kind === 'updated') return 'Found again by a later run';
  return `${e.from_status ?? ''} → ${e.to_status ?? ''}`;
}

function History({ events }: { events: TicketEvent[] }) {
  return (
    <section className="events" aria-labelledby="ticket-history">
      <h3 id="ticket-history">History</h3>
      <ol>
        {[...events].reverse().map((e, i) => (
          <li key={i}>
            <span className="num muted">{formatTime(e.at)}</span>
            <span>
              {eventText(e)}
              <span className="event-actor"> by {e.actor}</span>
              {e.note && e.kind !== 'opened' && <q className="note-text">{e.note}</q>}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}

function Actions({ d, onChanged }: { d: TicketDetail; onChanged: (d: TicketDetail) => void }) {
  const [to, setTo] = useState<TicketStatus>();
  return (
    <div className="row-actions">
      {d.status === 'Pending' ? (
        <>
          <button type="button" className="btn btn-primary" onClick={() => setTo('Resolved')}>
            Resolve…
          </button>
          <button type="button" className="btn" onClick={() => setTo('Dismissed')}>
            Dismiss…
          </button>
        </>
      ) : (
        <button type="button" className="btn" onClick={() => setTo('Pending')}>
          Reopen…
        </button>
      )}
      {to && (
        <ReasonDialog
          count={1}
          from={[d.status]}
          to={to}
          onClose={() => setTo(undefined)}
          apply={async (note) => onChanged(await call('ticket-transition', { ticket_id: d.ticket_id, to, ...(note ? { note } : {}) }))}
        />
      )}
    </div>
  );
}

/** One exception: what it is about, its two sides (or its figures), the explorer link, its history and its actions. */
export function Detail({ ticketId, version, onChanged }: { ticketId: string; version: number; onChanged: () => void }) {
  const go = useRoute((s) => s.go);
  const q = useQuery(`${ticketId}:${version}`, () => call('ticket-get', { ticket_id: ticketId }));
  const [override, setOverride] = useState<TicketDetail>();
  const d = override?.ticket_id === ticketId && q.data && override.updated_at >= q.data.updated_at ? override : q.data;
  if (q.error) return <ErrorBox message={q.error} onRetry={q.reload} title="Could not load the ticket" />;
  if (!d || d.ticket_id !== ticketId) return <Loading what="the ticket" />;
  const rec = d.record;
  return (
    <article className="ticket" aria-label={`Ticket ${d.ticket_id}`} data-testid="ticket-detail">
      <header className="ticket-head">
        <div>
          <h2>
            {EXCEPTION_KIND_LABELS[d.kind]}{' '}
            <span className="mono muted" title={d.ticket_id}>
              {shorten(d.ticket_id, 8, 0)}
            </span>{' '}
            <Badge>{d.status}</Badge>
          </h2>
          <p className="muted small">
            opened {formatTime(d.created_at)} UTC · updated {formatTime(d.updated_at)} UTC
            {d.wallet_id && (
              <>
                {' '}
                · wallet <WalletName id={d.wallet_id} />
              </>
            )}
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
            {rec?.hash && (
              <>
                {' '}
                · explorer <ExplorerLink chainId={rec.chain_id} kind="tx" value={rec.hash} />
              </>
            )}
          </p>
        </div>
        <Actions
          d={d}
          onChanged={(next) => {
            setOverride(next);
            onChanged();
          }}
        />
      </header>
      <p className="ticket-desc">{d.desc}</p>
      {typeof d.claimed.description === 'string' && d.claimed.description !== '' && (
        <p className="muted small" data-testid="books-description">
          The books describe it as “{d.claimed.description}”.
        </p>
      )}
      {d.kind === 'balance' ? <Figures claimed={d.claimed} /> : <Comparison d={d} />}
      <History events={d.events} />
    </article>
  );
}
