import { actorLabel, actorLabelStart } from '../../../../shared/actors';
import { useState, type ReactNode } from 'react';
import { FLAG_FIELDS, type FlagField } from '../../../../shared/reconcile';
import { EXCEPTION_KIND_LABELS, type TicketDetail, type TicketEvent, type TicketSeen, type TicketStatus } from '../../../../shared/tickets';
import { call, errorCode, errorText, TICKET_CHANGED } from '../../api';
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
  onchain: { claim: false, record: true },
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

const ONCHAIN_ROWS = ['amount', 'to', 'token', 'status', 'fee'] as const;

/** An onchain exception: what the chain's node says beside what the ledger records, field by field (claimed keeps both, as the check found them). */
function OnChain({ d }: { d: TicketDetail }) {
  const chain = (d.claimed.chain ?? {}) as Record<string, unknown>;
  const ledger = (d.claimed.ledger ?? {}) as Record<string, unknown>;
  const fields = new Set((d.claimed.fields ?? []) as string[]);
  const chainId = d.record?.chain_id ?? d.chain_id;
  const rows = ONCHAIN_ROWS.filter((f) => fields.has(f) || claimText(chain[f]) !== '');
  const value = (f: string, text: string) =>
    text === '' ? (
      <NoValue />
    ) : f === 'to' ? (
      <ExplorerLink chainId={chainId} kind="address" value={text} short={false} />
    ) : f === 'amount' || f === 'fee' ? (
      <Amount value={text} />
    ) : (
      <span className="mono break">{text}</span>
    );
  const where =
    typeof d.claimed.block_number === 'string'
      ? ` (block ${d.claimed.block_number}, ${claimText(d.claimed.confirmations)} confirmations when checked)`
      : '';
  return (
    <table className="table compare" aria-label="On the chain and in the ledger">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">On the chain{where}</th>
          <th scope="col">Recorded in the ledger</th>
        </tr>
      </thead>
      <tbody>
        {d.claimed.outcome === 'not_found' ? (
          <tr className="abnormal">
            <th scope="row">
              <FieldName field="hash" />
            </th>
            <td className="compare-missing">
              <strong>Not on the chain</strong>
              <span>The chain&apos;s node has no transaction with this hash.</span>
            </td>
            <td>{value('hash', claimText(d.claimed.hash))}</td>
          </tr>
        ) : (
          rows.map((f) => (
            <tr key={f} className={fields.has(f) ? 'abnormal' : undefined}>
              <th scope="row">
                <FieldName field={f === 'token' ? 'token_id' : f} />
                {fields.has(f) && <span className="chip chip-bad">differs</span>}
              </th>
              <td>{value(f, claimText(chain[f]))}</td>
              <td>{value(f, claimText(ledger[f]))}</td>
            </tr>
          ))
        )}
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
              <span className="event-actor"> by {actorLabel(e.actor)}</span>
              {e.note && e.kind !== 'opened' && <q className="note-text">{e.note}</q>}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/**
 * A change refused because others changed the ticket (or tickets) since this window showed them:
 * the service's sentence (who changed it, to what, when), above the ticket as it stands now.
 */
export function ChangedBanner({ text, onClose }: { text: string; onClose: () => void }) {
  const sentence = text.replace(/^ticket_ids?: /, '');
  return (
    <div className="banner banner-warn ticket-changed" role="alert" data-testid="ticket-changed">
      <strong>Nothing was changed</strong>
      <span>{sentence[0]!.toUpperCase() + sentence.slice(1)}.</span>
      <button type="button" className="btn btn-small btn-ghost" onClick={onClose}>
        Got it
      </button>
    </div>
  );
}

/** When the ticket changed since the dialog opened on it (the view reloads beneath): who changed it, and what going on will do. */
function changedMeanwhile(d: TicketDetail, seen: TicketSeen): string | undefined {
  if (d.version === seen.version) return undefined;
  const last = d.events.at(-1);
  const who = last ? `${actorLabelStart(last.actor)} changed it at ${formatTime(last.at)} UTC` : 'It changed';
  return `${who} while this was open: it is ${d.status} now. Going on will be refused; cancel and look again.`;
}

function Actions({
  d,
  onChanged,
  onRefused,
}: {
  d: TicketDetail;
  onChanged: (d: TicketDetail) => void;
  onRefused: (text: string) => void;
}) {
  // The change and the ticket as it was shown when the user chose it: a change made meanwhile by
  // someone else (the view reloads under the dialog) must refuse this one, not turn it into another.
  const [asked, setAsked] = useState<{ to: TicketStatus; seen: TicketSeen }>();
  const ask = (to: TicketStatus) => setAsked({ to, seen: { status: d.status, version: d.version } });
  return (
    <div className="row-actions">
      {d.status === 'Pending' ? (
        <>
          <button type="button" className="btn btn-primary" onClick={() => ask('Resolved')}>
            Resolve…
          </button>
          <button type="button" className="btn" onClick={() => ask('Dismissed')}>
            Dismiss…
          </button>
        </>
      ) : (
        <button type="button" className="btn" onClick={() => ask('Pending')}>
          Reopen…
        </button>
      )}
      {asked && (
        <ReasonDialog
          count={1}
          from={[asked.seen.status]}
          to={asked.to}
          warning={changedMeanwhile(d, asked.seen)}
          onClose={() => setAsked(undefined)}
          apply={async (note) => {
            const { to, seen } = asked;
            try {
              onChanged(await call('ticket-transition', { ticket_id: d.ticket_id, to, seen, ...(note ? { note } : {}) }));
            } catch (err) {
              if (errorCode(err) !== TICKET_CHANGED) throw err;
              onRefused(errorText(err));
            }
          }}
        />
      )}
    </div>
  );
}

/** One exception: what it is about, its two sides (or its figures), the explorer link, its history and its actions. */
export function Detail({ ticketId, version, onChanged }: { ticketId: string; version: string; onChanged: () => void }) {
  const go = useRoute((s) => s.go);
  const q = useQuery(`${ticketId}:${version}`, () => call('ticket-get', { ticket_id: ticketId }));
  const [override, setOverride] = useState<TicketDetail>();
  const [refused, setRefused] = useState<string>();
  const d = override?.ticket_id === ticketId && q.data && override.version >= q.data.version ? override : q.data;
  if (q.error) return <ErrorBox message={q.error} onRetry={q.reload} title="Could not load the ticket" />;
  if (!d || d.ticket_id !== ticketId) return <Loading what="the ticket" />;
  const rec = d.record;
  return (
    <article className="ticket" aria-label={`Ticket ${d.ticket_id}`} data-testid="ticket-detail">
      <header className="ticket-head">
        <div>
          <h2>
            {EXCEPTION_KIND_LABELS[d.kind]} {/* Head and tail: tickets opened together share the id's first digits (its time). */}
            <span className="mono muted" title={d.ticket_id}>
              {shorten(d.ticket_id, 8, 4)}
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
            setRefused(undefined);
            setOverride(next);
            onChanged();
          }}
          onRefused={(text) => {
            // Nothing was changed: the ticket as it stands now, under the sentence saying who changed it.
            setRefused(text);
            q.reload();
            onChanged();
          }}
        />
      </header>
      {refused && <ChangedBanner text={refused} onClose={() => setRefused(undefined)} />}
      <p className="ticket-desc">{d.desc}</p>
      {typeof d.claimed.description === 'string' && d.claimed.description !== '' && (
        <p className="muted small" data-testid="books-description">
          The books describe it as “{d.claimed.description}”.
        </p>
      )}
      {d.kind === 'balance' ? <Figures claimed={d.claimed} /> : d.kind === 'onchain' ? <OnChain d={d} /> : <Comparison d={d} />}
      <History events={d.events} />
    </article>
  );
}
