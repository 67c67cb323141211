import { useEffect, useRef, type MouseEvent, type ReactNode } from 'react';
import { EXCEPTION_KIND_LABELS, type TicketSummary } from '../../../../shared/tickets';
import { Amount, Badge, NoValue } from '../../components/ui';
import { WalletName } from '../../components/wallet-name';
import { formatTime, relativeTime } from '../../lib/format';
import type { TicketSort } from './filters';

/** A sortable column names its TICKET_SORTS key. */
interface QueueColumn {
  key: string;
  header: string;
  sort?: TicketSort;
  align?: 'right';
  className?: string;
  render: (t: TicketSummary) => ReactNode;
}

const Age = ({ at }: { at: number }) => (
  <span className="num" title={`${formatTime(at)} UTC`}>
    {relativeTime(at)}
  </span>
);

const Fields = ({ abnormals }: { abnormals: string }) => {
  const list = abnormals.split(',').filter(Boolean);
  if (list.length === 0) return <NoValue />;
  return (
    <span className="chips chips-inline">
      {list.map((f) => (
        <span key={f} className="chip chip-bad mono">
          {f}
        </span>
      ))}
    </span>
  );
};

const COLUMNS: QueueColumn[] = [
  {
    key: 'kind',
    header: 'Kind',
    sort: 'kind',
    render: (t) => <span className={`kind kind-${t.kind}`}>{EXCEPTION_KIND_LABELS[t.kind]}</span>,
  },
  { key: 'status', header: 'Status', sort: 'status', render: (t) => <Badge>{t.status}</Badge> },
  { key: 'wallet', header: 'Wallet', render: (t) => (t.wallet_id ? <WalletName id={t.wallet_id} /> : <NoValue />) },
  { key: 'chain', header: 'Chain', render: (t) => (t.chain_id ? <span className="mono">{t.chain_id}</span> : <NoValue />) },
  { key: 'token', header: 'Token', render: (t) => (t.token_id ? <span className="mono">{t.token_id}</span> : <NoValue />) },
  { key: 'amount', header: 'Amount', sort: 'amount', align: 'right', render: (t) => <Amount value={t.amount} /> },
  { key: 'fields', header: 'Fields', render: (t) => <Fields abnormals={t.abnormals} /> },
  { key: 'opened', header: 'Opened', sort: 'created_at', render: (t) => <Age at={t.created_at} /> },
  { key: 'updated', header: 'Updated', sort: 'updated_at', render: (t) => <Age at={t.updated_at} /> },
  {
    key: 'desc',
    header: 'Description',
    className: 'tq-desc',
    render: (t) => <span title={t.desc}>{t.desc}</span>,
  },
];

function SortHeader({
  column,
  sort,
  order,
  onSort,
}: {
  column: QueueColumn;
  sort: TicketSort;
  order: 'asc' | 'desc';
  onSort: (s: TicketSort) => void;
}) {
  const cls = column.align === 'right' ? 'al-right' : undefined;
  if (!column.sort)
    return (
      <th scope="col" className={cls}>
        {column.header}
      </th>
    );
  const active = column.sort === sort;
  return (
    <th scope="col" className={cls} aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <button type="button" className="sort-button" onClick={() => onSort(column.sort!)}>
        {column.header}
        <span className="sort-mark" aria-hidden="true">
          {active ? (order === 'asc' ? '▲' : '▼') : '↕'}
        </span>
      </button>
    </th>
  );
}

/** The page's header checkbox: checked when every row is chosen, mixed when some are. */
function PageCheckbox({ all, some, onChange }: { all: boolean; some: boolean; onChange: (on: boolean) => void }) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = some && !all;
  }, [all, some]);
  return (
    <input
      ref={ref}
      type="checkbox"
      aria-label="Select every ticket on this page"
      checked={all}
      onChange={(e) => onChange(e.target.checked)}
    />
  );
}

/**
 * One page of the queue: a checkbox per row (shift-click chooses the range from the last one
 * clicked), a click elsewhere on the row opens the ticket below.
 */
export function QueueTable({
  tickets,
  openId,
  checked,
  onOpen,
  onCheck,
  onCheckPage,
  sort,
  order,
  onSort,
  busy,
}: {
  tickets: TicketSummary[];
  openId: string | undefined;
  checked: { has: (ticketId: string) => boolean };
  onOpen: (t: TicketSummary) => void;
  onCheck: (index: number, on: boolean, range: boolean) => void;
  onCheckPage: (on: boolean) => void;
  sort: TicketSort;
  order: 'asc' | 'desc';
  onSort: (s: TicketSort) => void;
  busy: boolean;
}) {
  const onBox = (i: number) => (e: MouseEvent<HTMLInputElement>) => {
    e.stopPropagation();
    onCheck(i, e.currentTarget.checked, e.shiftKey);
  };
  const chosen = tickets.filter((t) => checked.has(t.ticket_id)).length;
  return (
    <div className={busy ? 'tq-wrap is-loading' : 'tq-wrap'} data-testid="ticket-queue">
      <table className="table tq" aria-label="Exception queue">
        <thead>
          <tr>
            <th scope="col" className="tq-check">
              <PageCheckbox all={chosen > 0 && chosen === tickets.length} some={chosen > 0} onChange={onCheckPage} />
            </th>
            {COLUMNS.map((c) => (
              <SortHeader key={c.key} column={c} sort={sort} order={order} onSort={onSort} />
            ))}
          </tr>
        </thead>
        <tbody>
          {tickets.map((t, i) => {
            const open = t.ticket_id === openId;
            const on = checked.has(t.ticket_id);
            return (
              <tr
                key={t.ticket_id}
                data-ticket={t.ticket_id}
                aria-current={open ? 'true' : undefined}
                aria-selected={on}
                className={['clickable', open ? 'tq-open' : '', on ? 'tq-checked' : ''].filter(Boolean).join(' ')}
                tabIndex={0}
                onClick={() => onOpen(t)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && e.target === e.currentTarget) onOpen(t);
                }}
              >
                <td className="tq-check">
                  <input
                    type="checkbox"
                    aria-label={`Select ticket ${t.ticket_id.slice(0, 8)}`}
                    checked={on}
                    onClick={onBox(i)}
                    onChange={() => {}}
                  />
                </td>
                {COLUMNS.map((c) => (
                  <td
                    key={c.key}
                    className={[c.align === 'right' ? 'al-right' : '', c.className ?? ''].filter(Boolean).join(' ') || undefined}
                  >
                    {c.render(t)}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
