import { useState } from 'react';
import type { BalanceCheck, Movement, PeriodBalance } from '../../../shared/balances';
import { FAILED_FEE_RULE } from '../../../shared/ledger';
import { call, errorText } from '../api';
import { DataTable, type SimpleColumn } from '../components/data-table';
import { Amount, Badge, Empty, ErrorBox, Field, Loading, PageHeader, Pager } from '../components/ui';
import { walletLabel, WalletName } from '../components/wallet-name';
import { formatCount, fractionWidth, formatTime, previousMonth, shorten } from '../lib/format';
import { useQuery } from '../lib/use-query';
import { useReference } from '../stores/reference';
import { useChainClosing } from './balances-chain';
import { useChangeKey } from '../stores/changes';

/*
 * Balances from the ledger: per wallet and token, a period's opening, in, out, fees and closing
 * (days in UTC, both ends whole days); a row opens its statement (the movements with the balance
 * after each); a custodian's closing balance is checked against the ledger's, and a difference
 * opens an exception in the queue. The rules: docs/ledger.md, "Balances".
 */

const PAGE_SIZE = 50;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const rowKey = (r: { wallet_id: string; token_id: string }) => `${r.wallet_id}|${r.token_id}`;

function WalletSelect({ id, value, onChange, allLabel }: { id: string; value: string; onChange: (v: string) => void; allLabel: string }) {
  const wallets = useReference((s) => s.wallets.data);
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{allLabel}</option>
      {(wallets ?? []).map((w) => (
        <option key={w.wallet_id} value={w.wallet_id}>
          {walletLabel(wallets, w.wallet_id)}
        </option>
      ))}
    </select>
  );
}

function Statement({ row, from, to, onClose }: { row: PeriodBalance; from: string; to: string; onClose: () => void }) {
  const [page, setPage] = useState(1);
  const q = useQuery(`${rowKey(row)}|${from}|${to}|${page}`, () =>
    call('balance-movements', { wallet_id: row.wallet_id, token_id: row.token_id, from, to, page, page_size: PAGE_SIZE }),
  );
  const list = q.data?.list ?? [];
  const frac = {
    in: fractionWidth(list.map((m) => m.inflow)),
    out: fractionWidth(list.map((m) => m.outflow)),
    fees: fractionWidth(list.map((m) => m.fees)),
    balance: fractionWidth(list.map((m) => m.balance)),
  };
  const columns: SimpleColumn<Movement>[] = [
    { key: 'at', header: 'Time (UTC)', render: (m) => <span className="nowrap">{formatTime(m.at)}</span> },
    { key: 'type', header: 'type', render: (m) => m.type },
    { key: 'status', header: 'status', render: (m) => <Badge>{m.status}</Badge> },
    {
      key: 'transaction_id',
      header: 'transaction_id',
      render: (m) => (
        <span className="mono" title={m.transaction_id}>
          {shorten(m.transaction_id, 8, 4)}
        </span>
      ),
    },
    { key: 'in', header: 'In', align: 'right', render: (m) => <Amount value={m.inflow === '0' ? '' : m.inflow} fracCh={frac.in} /> },
    { key: 'out', header: 'Out', align: 'right', render: (m) => <Amount value={m.outflow === '0' ? '' : m.outflow} fracCh={frac.out} /> },
    { key: 'fees', header: 'Fees', align: 'right', render: (m) => <Amount value={m.fees === '0' ? '' : m.fees} fracCh={frac.fees} /> },
    {
      key: 'balance',
      header: 'Balance',
      align: 'right',
      pinned: true,
      render: (m) => <Amount value={m.balance} className="strong" fracCh={frac.balance} />,
    },
  ];
  const s = q.data;
  return (
    <section className="card" aria-label="Statement">
      <div className="card-head">
        <div>
          <h2>
            Statement: <WalletName id={row.wallet_id} /> · {row.token_id}
          </h2>
          <p className="muted small">
            {from} to {to} (UTC). Each movement with the balance after it; the records that move nothing (pending, rejected) are not listed.
          </p>
        </div>
        <button type="button" className="btn btn-small" onClick={onClose}>
          Close
        </button>
      </div>
      {q.error ? (
        <ErrorBox message={q.error} onRetry={q.reload} title="Could not load the statement" />
      ) : !s ? (
        <Loading what="the statement" />
      ) : (
        <>
          <div className="kv">
            <span>Opening balance</span>
            <Amount value={s.opening} />
            <span>Closing balance</span>
            <Amount value={s.closing} className="strong" />
          </div>
          {s.total === 0 ? (
            <Empty title="No movements in the period" />
          ) : (
            <>
              <DataTable label="Movements" columns={columns} rows={s.list} rowKey={(m) => m.transaction_id} />
              <Pager page={page} pageSize={PAGE_SIZE} total={s.total} onPage={setPage} busy={q.loading} />
            </>
          )}
        </>
      )}
    </section>
  );
}

/** What a check found, with the rule it compared by and what it did to the balance exception. */
function CheckResult({ result, walletText }: { result: BalanceCheck; walletText: string }) {
  const agrees = result.difference === '0';
  const ticket = result.ticket_id && (
    <a href={`#/tickets/ticket/${encodeURIComponent(result.ticket_id)}`}>{shorten(result.ticket_id, 8, 4)}</a>
  );
  return (
    <div className={`banner ${agrees ? 'banner-good' : 'banner-warn'}`} role="status" data-testid="check-result">
      <strong>
        {agrees
          ? `The statement agrees with the ledger at its ${result.places} decimal place${result.places === 1 ? '' : 's'}`
          : `Difference ${result.difference} ${result.token_id}`}
      </strong>
      <span>
        {walletText}, {result.token_id} at {formatTime(result.at)} UTC: statement {result.statement_balance}, ledger {result.ledger_balance}
        , difference {result.difference}.
      </span>
      <span data-testid="check-rule">The rule: {result.rule}.</span>
      {ticket && result.ticket_status === 'Pending' && <span>Exception {ticket} (kind balance) is Pending in the Tickets queue.</span>}
      {ticket && result.ticket_status === 'Resolved' && (
        <span>Exception {ticket} (kind balance), which an earlier check opened, is now resolved, with this check as the reason.</span>
      )}
    </div>
  );
}

function CheckForm({ wallet, tokens, at }: { wallet: string; tokens: string[]; at: string }) {
  const wallets = useReference((s) => s.wallets.data);
  const [walletId, setWalletId] = useState(wallet);
  const [token, setToken] = useState(tokens[0] ?? '');
  const [date, setDate] = useState(at);
  const [balance, setBalance] = useState('');
  const [places, setPlaces] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [result, setResult] = useState<BalanceCheck>();
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(
        await call('balance-check', {
          wallet_id: walletId,
          token_id: token.trim(),
          at: date,
          statement_balance: balance.trim(),
          ...(places.trim() !== '' ? { places: /^\d+$/.test(places.trim()) ? Number(places.trim()) : places.trim() } : {}),
        }),
      );
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="check-title">
      <div>
        <h2 id="check-title">Check against statement</h2>
        <p className="muted small">
          The closing balance on the custodian&apos;s statement, compared with the ledger&apos;s at the end of that day (UTC), at the
          statement&apos;s own precision: the ledger&apos;s balance rounded half to even to the decimal places the statement is written
          with. A difference opens an exception of kind balance in the Tickets queue; the same check again updates it, and a figure that
          agrees resolves it.
        </p>
      </div>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Field label="Wallet" htmlFor="check-wallet">
          <WalletSelect id="check-wallet" value={walletId} onChange={setWalletId} allLabel="Choose a wallet" />
        </Field>
        <Field label="token_id" htmlFor="check-token">
          <input
            id="check-token"
            className="mono"
            list="check-tokens"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            spellCheck={false}
          />
          <datalist id="check-tokens">
            {tokens.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        </Field>
        <Field label="Statement date" htmlFor="check-date">
          <input id="check-date" type="date" value={date} onChange={(e) => setDate(e.target.value)} />
        </Field>
        <Field label="Closing balance on the statement" htmlFor="check-balance">
          <input
            id="check-balance"
            className="mono"
            inputMode="decimal"
            value={balance}
            onChange={(e) => setBalance(e.target.value)}
            placeholder="e.g. 10.50"
          />
        </Field>
        <Field label="Decimal places" htmlFor="check-places" hint="Blank: as the figure is written">
          <input
            id="check-places"
            className="mono"
            inputMode="numeric"
            value={places}
            onChange={(e) => setPlaces(e.target.value)}
            placeholder="as written"
          />
        </Field>
        <div className="filters-actions">
          <button type="submit" className="btn btn-primary" disabled={busy || !walletId || !token.trim() || !date || !balance.trim()}>
            {busy ? 'Checking…' : 'Check'}
          </button>
        </div>
      </form>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {result && <CheckResult result={result} walletText={walletLabel(wallets, result.wallet_id)} />}
    </section>
  );
}

export function BalancesScreen() {
  const initial = previousMonth();
  const [wallet, setWallet] = useState('');
  const [fromText, setFromText] = useState(initial.from);
  const [toText, setToText] = useState(initial.to);
  const [period, setPeriod] = useState(initial);
  const [selected, setSelected] = useState<PeriodBalance>();
  const othersChanged = useChangeKey('imports');
  const q = useQuery(`${wallet}|${period.from}|${period.to}|${othersChanged}`, () =>
    call('balances-period', { ...(wallet ? { wallet_id: wallet } : {}), from: period.from, to: period.to }),
  );
  const apply = () => {
    setPeriod({ from: fromText, to: toText });
    setSelected(undefined);
  };
  const rows = q.data?.rows ?? [];
  // Each amount column's fractions as wide as its widest: the decimal points line up down the column.
  const frac = {
    opening: fractionWidth(rows.map((r) => r.opening)),
    inflow: fractionWidth(rows.map((r) => r.inflow)),
    outflow: fractionWidth(rows.map((r) => r.outflow)),
    fees: fractionWidth(rows.map((r) => r.fees)),
    closing: fractionWidth(rows.map((r) => r.closing)),
  };
  const columns: SimpleColumn<PeriodBalance>[] = [
    { key: 'wallet', header: 'Wallet', render: (r) => <WalletName id={r.wallet_id} /> },
    {
      key: 'token',
      header: 'token_id',
      render: (r) => (
        <span className="nowrap">
          <span className="mono">{r.token_id}</span> <span className="chip">{r.chain_id}</span>
        </span>
      ),
    },
    { key: 'movements', header: 'Movements', align: 'right', render: (r) => <span className="num">{formatCount(r.movements)}</span> },
    { key: 'opening', header: 'Opening', align: 'right', render: (r) => <Amount value={r.opening} fracCh={frac.opening} /> },
    { key: 'in', header: 'In', align: 'right', render: (r) => <Amount value={r.inflow} fracCh={frac.inflow} /> },
    { key: 'out', header: 'Out', align: 'right', render: (r) => <Amount value={r.outflow} fracCh={frac.outflow} /> },
    { key: 'fees', header: 'Fees', align: 'right', render: (r) => <Amount value={r.fees} fracCh={frac.fees} /> },
    // The figure the period is closed on stays in view when the table is wider than the window.
    {
      key: 'closing',
      header: 'Closing',
      align: 'right',
      pinned: true,
      render: (r) => <Amount value={r.closing} className="strong" fracCh={frac.closing} />,
    },
  ];
  // Where a row's chain has a node, the chain's own closing figure beside the ledger's (balances-chain.tsx):
  // just before Closing, which stays pinned at the table's right edge, so the two stay side by side at any width.
  const chain = useChainClosing(rows, period.to);
  if (chain.column)
    columns.splice(
      columns.findIndex((c) => c.key === 'closing'),
      0,
      chain.column,
    );
  const checkWallet = selected?.wallet_id ?? wallet;
  // The chosen row's token first: the check is about what the accountant is looking at.
  const checkTokens = [
    ...new Set([
      ...(selected ? [selected.token_id] : []),
      ...rows.filter((r) => !checkWallet || r.wallet_id === checkWallet).map((r) => r.token_id),
    ]),
  ];
  const validPeriod = DAY.test(fromText) && DAY.test(toText);
  return (
    <div className="screen">
      <PageHeader
        title="Balances"
        subtitle={`Opening and closing balance per wallet and token from the ledger: completed deposits in, completed withdrawals and their fees out; ${FAILED_FEE_RULE}, as in the Ledger totals and the reconciliation report. A record counts when it completed (else confirmed, else created).`}
      />
      <section className="card">
        <form
          className="filters"
          onSubmit={(e) => {
            e.preventDefault();
            apply();
          }}
        >
          <Field label="Wallet" htmlFor="bal-wallet">
            <WalletSelect
              id="bal-wallet"
              value={wallet}
              onChange={(v) => {
                setWallet(v);
                setSelected(undefined);
              }}
              allLabel="All wallets"
            />
          </Field>
          <Field label="From (UTC day)" htmlFor="bal-from">
            <input id="bal-from" type="date" value={fromText} onChange={(e) => setFromText(e.target.value)} />
          </Field>
          <Field label="To (UTC day, inclusive)" htmlFor="bal-to">
            <input id="bal-to" type="date" value={toText} onChange={(e) => setToText(e.target.value)} />
          </Field>
          <div className="filters-actions">
            <button type="submit" className="btn" disabled={!validPeriod}>
              Show
            </button>
          </div>
        </form>
        {q.error ? (
          <ErrorBox message={q.error} onRetry={q.reload} title="Could not load the balances" />
        ) : !q.data ? (
          <Loading what="balances" />
        ) : rows.length === 0 ? (
          <Empty title="No balances">No completed record of {wallet ? 'this wallet' : 'any wallet'} up to the end of the period.</Empty>
        ) : (
          <>
            <DataTable
              label="Balances"
              columns={columns}
              rows={rows}
              rowKey={rowKey}
              onRowClick={(r) => setSelected(r)}
              selectedKey={selected ? rowKey(selected) : undefined}
            />
            <p className="muted small">
              {period.from} to {period.to}, whole days in UTC. Closing = opening + in − out − fees. Choose a row for its statement.
              {q.data.undated > 0 && ` ${formatCount(q.data.undated)} record(s) carry no time and are in no balance.`}
            </p>
            {chain.note}
          </>
        )}
      </section>
      {selected && (
        <Statement key={rowKey(selected)} row={selected} from={period.from} to={period.to} onClose={() => setSelected(undefined)} />
      )}
      <CheckForm key={`${checkWallet}|${period.to}|${checkTokens.join(',')}`} wallet={checkWallet} tokens={checkTokens} at={period.to} />
    </div>
  );
}
