import { useState } from 'react';
import { FLAG_FIELDS, matchFlagOf, type FlagField, type RunItem } from '../../../../shared/reconcile';
import { call, errorText } from '../../api';
import { Icon } from '../../components/icons';
import { ExplorerLink } from '../../components/links';
import { Badge, Empty, ErrorBox, FieldName, Loading, Pager, Stat } from '../../components/ui';
import { downloadText, toCsv } from '../../lib/csv';
import { downloadFile } from '../../lib/download';
import { REPORT_GROUP_LABELS, type ReportFormat } from '../../../../shared/reports';
import { WalletName } from '../../components/wallet-name';
import { formatCount, formatTime, shorten } from '../../lib/format';
import { useQuery } from '../../lib/use-query';
import { useRoute } from '../../stores/route';
import { claimedDisplay, claimText, given, identifierOf, outcomeOf, recordedText } from './claims';

type ItemFilter = 'all' | 'matched' | 'mismatched' | 'not_found' | 'duplicates';
/** The run's claims by group, or (two-way runs) the ledger records no claim found. */
type Filter = ItemFilter | 'not_in_books';
const PAGE = 50;
const GROUP = REPORT_GROUP_LABELS;
/** The group a filter of the run's claims shows. */
const GROUP_OF: Record<Exclude<ItemFilter, 'all'>, keyof typeof GROUP> = {
  matched: 'matched',
  mismatched: 'mismatched',
  not_found: 'not_in_ledger',
  duplicates: 'duplicates',
};
const AMOUNTS = new Set<FlagField>(['amount', 'fee', 'amount_actual']);

function FieldCell({ item, f }: { item: RunItem; f: FlagField }) {
  const isGiven = given(item.claimed, f);
  const ok = item[matchFlagOf(f)];
  const found = item.record !== null;
  const claimed = claimedDisplay(item.claimed, f);
  const recorded = recordedText(item.record, f, item.claimed);
  const state = !found ? 'nf' : !isGiven ? 'skip' : ok ? 'ok' : 'bad';
  const mark = state === 'ok' ? 'check' : state === 'bad' ? 'cross' : 'dash';
  const label = state === 'ok' ? 'agrees' : state === 'bad' ? 'differs' : state === 'skip' ? 'not given' : 'not in ledger';
  const title = `${matchFlagOf(f)}: ${ok} (${label})${isGiven ? `\nclaimed: ${claimed}` : ''}${found ? `\nrecorded: ${recorded || '—'}` : ''}`;
  return (
    <div className={`fcell fcell-${state}${AMOUNTS.has(f) ? ' fcell-num' : ''}`} title={title}>
      <Icon name={mark} size={13} className="fmark" />
      <div className="fvals">
        <span className="fclaimed">{isGiven ? claimed : '—'}</span>
        {found && <span className="frecorded">{recorded || '—'}</span>}
      </div>
    </div>
  );
}

/** A books run's row number in the accountant's file (rows that could not be read leave gaps); an API run's position in its request. */
const rowOf = (it: RunItem): number => (typeof it.claimed.books_row === 'number' ? it.claimed.books_row : it.idx + 1);

async function exportRun(runId: string, label: string, onProgress: (n: number, total: number) => void): Promise<void> {
  const rows: unknown[][] = [];
  for (let page = 1; ; page++) {
    const r = await call('run-get', { run_id: runId, page, page_size: 100, filter: 'all' });
    for (const it of r.items.list) {
      const id = identifierOf(it.claimed);
      rows.push([
        rowOf(it),
        outcomeOf(it),
        id.kind,
        id.value,
        it.record?.transaction_id ?? '',
        it.ticket_id ?? '',
        // The flag exactly as the API answers it: true when the field agrees or was not given, false when it differs or nothing was found.
        ...FLAG_FIELDS.flatMap((f) => [
          given(it.claimed, f) ? claimText(it.claimed[f]) : '',
          recordedText(it.record, f, it.claimed),
          String(it[matchFlagOf(f)]),
        ]),
      ]);
    }
    onProgress(rows.length, r.items.total);
    if (rows.length >= r.items.total || r.items.list.length === 0) break;
  }
  const header = [
    'row',
    'outcome',
    'identifier',
    'identifier_value',
    'transaction_id',
    'ticket_id',
    ...FLAG_FIELDS.flatMap((f) => [`claimed_${f}`, `recorded_${f}`, matchFlagOf(f)]),
  ];
  downloadText(`reconciliation-${label.replace(/[^\w.-]+/g, '_') || runId}.csv`, toCsv(header, rows));
}

const dayText = (ms: number | null): string => (ms === null ? '…' : formatTime(ms));

/** The ledger side of a two-way run: records of its period no claim found, each with its exception. */
function Unbooked({ runId }: { runId: string }) {
  const go = useRoute((s) => s.go);
  const [page, setPage] = useState(1);
  const rows = useQuery(`unbooked:${runId}:${page}`, () => call('run-unbooked', { run_id: runId, page, page_size: PAGE }));
  if (rows.error && !rows.data) return <ErrorBox message={rows.error} onRetry={rows.reload} title="Could not load the records" />;
  if (!rows.data) return <Loading what="the records" />;
  if (rows.data.list.length === 0) return <Empty title="Every ledger record of the period is in the books" />;
  return (
    <>
      <div className={rows.loading ? 'grid-wrap is-loading' : 'grid-wrap'}>
        <table className="table" aria-label="In the ledger, not in the books">
          <thead>
            <tr>
              <th scope="col">Exception</th>
              <th scope="col">created_at (UTC)</th>
              <th scope="col">type</th>
              <th scope="col">status</th>
              <th scope="col" className="al-right">
                amount
              </th>
              <th scope="col">token_id</th>
              <th scope="col">wallet</th>
              <th scope="col">hash</th>
            </tr>
          </thead>
          <tbody>
            {rows.data.list.map((u) => (
              <tr key={u.transaction_id}>
                <td>
                  {u.ticket_id ? (
                    <a
                      className="badge-link"
                      href={`#/tickets/ticket/${u.ticket_id}`}
                      aria-label={`${GROUP.not_in_books}: open exception ${u.ticket_id.slice(0, 8)}`}
                      onClick={(e) => {
                        e.preventDefault();
                        go({ screen: 'tickets', sub: 'ticket', id: u.ticket_id! });
                      }}
                    >
                      <Badge>{GROUP.not_in_books}</Badge>
                      <span className="small">exception ›</span>
                    </a>
                  ) : (
                    <Badge>{GROUP.not_in_books}</Badge>
                  )}
                </td>
                <td className="num">{u.record ? formatTime(u.record.created_at) : '—'}</td>
                <td>{u.record?.type ?? ''}</td>
                <td>{u.record?.status ?? ''}</td>
                <td className="al-right num">{u.record?.amount ?? ''}</td>
                <td>{u.record?.token_id ?? ''}</td>
                <td>{u.record ? <WalletName id={u.record.wallet_id} /> : ''}</td>
                <td>
                  {u.record?.hash ? (
                    <ExplorerLink chainId={u.record.chain_id} kind="tx" value={u.record.hash} head={8} tail={6} />
                  ) : (
                    <span className="mono" title={u.transaction_id}>
                      {shorten(u.transaction_id, 8, 4)}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager page={page} pageSize={PAGE} total={rows.data.total} onPage={setPage} busy={rows.loading} />
    </>
  );
}

/** Unreadable books rows listed on the run's page (the run keeps the first 1000). */
const SHOWN_REJECTED = 200;

export function RunResults({ runId }: { runId: string }) {
  const go = useRoute((s) => s.go);
  const [filter, setFilter] = useState<Filter>('all');
  const [page, setPage] = useState(1);
  const [exporting, setExporting] = useState<string>();
  // The not-in-books list is its own call; the run's header and counts still come from run-get.
  const itemFilter: ItemFilter = filter === 'not_in_books' ? 'all' : filter;
  const run = useQuery(`${runId}:${itemFilter}:${page}`, () =>
    call('run-get', { run_id: runId, page: filter === 'not_in_books' ? 1 : page, page_size: PAGE, filter: itemFilter }),
  );
  const pick = (f: Filter) => {
    setFilter(f);
    setPage(1);
  };

  if (run.error && !run.data) return <ErrorBox message={run.error} onRetry={run.reload} title="Could not load the run" />;
  if (!run.data) return <Loading what="the results" />;
  const r = run.data;
  // Only the fields the books gave get a column; the rest would be a column of dashes.
  const givenFields = FLAG_FIELDS.filter((f) => r.items.list.some((it) => given(it.claimed, f)));
  const fields = givenFields.length ? givenFields : [...FLAG_FIELDS];
  const hidden = FLAG_FIELDS.filter((f) => !fields.includes(f));

  const doReport = async (format: ReportFormat) => {
    setExporting(`Writing the ${format.toUpperCase()} report…`);
    try {
      downloadFile(await call('run-report-file', { run_id: runId, format }));
      setExporting(undefined);
    } catch (err) {
      setExporting(`Report failed: ${errorText(err)}`);
    }
  };

  const doExport = async () => {
    setExporting('Exporting…');
    try {
      await exportRun(runId, r.label, (n, total) => setExporting(`Exporting ${n} of ${total}…`));
      setExporting(undefined);
    } catch (err) {
      setExporting(`Export failed: ${errorText(err)}`);
    }
  };

  return (
    <div className="results">
      <div className="results-head">
        <div>
          <h2 className="run-title">{r.label || 'Reconciliation run'}</h2>
          <p className="muted">
            {formatTime(r.created_at)} UTC · from{' '}
            {r.source === 'ui'
              ? 'this app'
              : r.source === 'api'
                ? `the API${r.api_key ? ` (key ${shorten(r.api_key, 8, 4)})` : ''}`
                : 'the command line'}
            {r.wallet_id ? (
              <>
                {' '}
                · wallet <WalletName id={r.wallet_id} />
              </>
            ) : (
              ' · all wallets'
            )}{' '}
            · {r.item_count} rows
            {r.two_way && (
              <>
                {' '}
                · two-way, period {dayText(r.period_from)} to {dayText(r.period_to)} UTC
              </>
            )}
          </p>
        </div>
        <div className="row-actions">
          {exporting && <span className="muted small">{exporting}</span>}
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => void doReport('xlsx')}
            disabled={exporting?.endsWith('…')}
            title="The auditor's workbook: a summary (the books file and its SHA-256, period, tolerances, counts, exceptions, balances, who ran it, sign-off), a sheet per group with each exception's state, and the rejected books rows"
          >
            <Icon name="download" size={14} /> Report (XLSX)
          </button>
          <button type="button" className="btn" onClick={() => void doReport('csv')} disabled={exporting?.endsWith('…')}>
            <Icon name="download" size={14} /> Report (CSV)
          </button>
          <button type="button" className="btn" onClick={() => void doExport()} disabled={exporting?.endsWith('…')}>
            <Icon name="download" size={14} /> Export results (CSV)
          </button>
        </div>
      </div>
      <div className="stats" role="group" aria-label="Filter results">
        <Stat label="all rows" value={r.item_count} onClick={() => pick('all')} active={filter === 'all'} />
        <Stat label={GROUP.matched} value={r.matched} tone="good" onClick={() => pick('matched')} active={filter === 'matched'} />
        <Stat
          label={GROUP.mismatched}
          value={r.mismatched}
          tone="bad"
          onClick={() => pick('mismatched')}
          active={filter === 'mismatched'}
        />
        <Stat
          label={GROUP.not_in_ledger}
          value={r.not_found}
          tone={r.two_way ? 'bad' : 'muted'}
          onClick={() => pick('not_found')}
          active={filter === 'not_found'}
        />
        {r.two_way && (
          <>
            <Stat
              label={GROUP.not_in_books}
              value={r.not_in_books}
              tone="bad"
              onClick={() => pick('not_in_books')}
              active={filter === 'not_in_books'}
            />
            <Stat
              label={GROUP.duplicates}
              value={r.duplicates}
              tone="warn"
              onClick={() => pick('duplicates')}
              active={filter === 'duplicates'}
            />
          </>
        )}
        {r.rejected_count > 0 && <Stat label="books rows unreadable" value={r.rejected_count} tone="warn" />}
      </div>
      {r.rejected_count > 0 && (
        <details className="rejected-books">
          <summary>
            {r.rejected_count} books row{r.rejected_count === 1 ? '' : 's'} could not be read and were left out
          </summary>
          <ul>
            {r.rejected.slice(0, SHOWN_REJECTED).map((x) => (
              <li key={`${x.row}:${x.field}`}>
                Row <span className="num">{x.row}</span>, <span className="mono">{x.field}</span>: {x.reason}
              </li>
            ))}
            {r.rejected_count > SHOWN_REJECTED && <li className="muted">… and {r.rejected_count - SHOWN_REJECTED} more</li>}
          </ul>
        </details>
      )}
      {r.stored_items < r.item_count && (
        <p className="warning" data-testid="run-retention-note">
          Data retention (Settings) has removed this run's rows, keeping the {formatCount(r.stored_items)} of its{' '}
          {formatCount(r.item_count)} that opened or touched a ticket. The counts above are the run's as it was checked.
        </p>
      )}
      {filter === 'not_in_books' ? (
        <Unbooked runId={runId} />
      ) : r.items.list.length === 0 ? (
        <Empty title={filter === 'all' ? 'This run has no rows' : `No rows in this run are ${GROUP[GROUP_OF[filter]]}`} />
      ) : (
        <div className={run.loading ? 'grid-wrap is-loading' : 'grid-wrap'}>
          <table className="table results-grid" aria-label="Reconciliation results">
            <thead>
              <tr>
                <th scope="col" className="al-right">
                  Row
                </th>
                <th scope="col">Outcome · hash or ID · the books’ description</th>
                {fields.map((f) => (
                  <th key={f} scope="col" className={AMOUNTS.has(f) ? 'al-right' : undefined}>
                    <FieldName field={f} />
                  </th>
                ))}
              </tr>
              <tr className="legend-row">
                <th colSpan={2} />
                <th colSpan={fields.length} className="legend">
                  Each cell: <span className="fclaimed">claimed in the books</span> above{' '}
                  <span className="frecorded">recorded in the ledger</span>
                  {hidden.length > 0 && <> · not in the books, so not compared: {hidden.join(', ')}</>}
                </th>
              </tr>
            </thead>
            <tbody>
              {r.items.list.map((it) => {
                const id = identifierOf(it.claimed);
                const outcome = outcomeOf(it);
                return (
                  <tr key={it.idx} className={`outcome-${outcome.toLowerCase().replace(/ /g, '-')}`}>
                    <td className="al-right num">{rowOf(it)}</td>
                    <td className="ident">
                      <div>
                        {it.ticket_id ? (
                          <a
                            className="badge-link"
                            href={`#/tickets/ticket/${it.ticket_id}`}
                            title={`Open ticket ${it.ticket_id}`}
                            aria-label={`${outcome}: open ticket ${it.ticket_id.slice(0, 8)}`}
                            onClick={(e) => {
                              e.preventDefault();
                              go({ screen: 'tickets', sub: 'ticket', id: it.ticket_id! });
                            }}
                          >
                            <Badge>{outcome}</Badge>
                            <span className="small">ticket ›</span>
                          </a>
                        ) : (
                          <Badge>{outcome}</Badge>
                        )}
                        {id.kind !== 'hash' && <span className="muted small">{id.kind.replace('_id', ' ID')}</span>}
                        {it.duplicate_of !== null && <span className="muted small">repeats claim {it.duplicate_of + 1}</span>}
                      </div>
                      {id.kind === 'hash' && it.record ? (
                        <ExplorerLink chainId={it.record.chain_id} kind="tx" value={id.value} head={8} tail={6} />
                      ) : (
                        <span className="mono" title={id.value}>
                          {shorten(id.value, 8, 6)}
                        </span>
                      )}
                      {typeof it.claimed.description === 'string' && it.claimed.description !== '' && (
                        <p className="item-desc" title={it.claimed.description}>
                          {it.claimed.description}
                        </p>
                      )}
                      {it.record_changed && (
                        <div
                          className="small text-warn"
                          title="An import updated this record after the run: the marks are from the check, the recorded values shown are today's."
                        >
                          record changed since
                        </div>
                      )}
                    </td>
                    {fields.map((f) => (
                      <td key={f} className="fcol">
                        <FieldCell item={it} f={f} />
                      </td>
                    ))}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {filter !== 'not_in_books' && <Pager page={page} pageSize={PAGE} total={r.items.total} onPage={setPage} busy={run.loading} />}
    </div>
  );
}
