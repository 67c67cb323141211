import {
  BOOKS_AMOUNT_SIGNS,
  BOOKS_KEPT_FIELDS,
  BOOKS_TRANSLATED_FIELDS,
  DEFAULT_AMOUNT_DELTA,
  DEFAULT_TIME_DELTA,
  FLAG_FIELDS,
  IDENTIFIER_FIELDS,
  TIME_TYPES,
  type BooksColumnField,
  type BooksMapping,
  type TimeType,
} from '../../../../shared/reconcile';
import { LEDGER_STATUSES, LEDGER_TYPES } from '../../../../shared/ledger';
import { FileDrop } from '../../components/file-drop';
import { ColumnSelect, ConstantInput, SampleCell, sampleOf } from '../../components/mapping';
import { ErrorBox, Field, ProgressBar, Spinner } from '../../components/ui';
import { formatBytes, formatCount, shorten } from '../../lib/format';
import { useReference } from '../../stores/reference';
import { useRoute } from '../../stores/route';
import { BooksPreviewTable } from './books-preview';
import { useRunWizard } from './store';
import { PeriodFields } from './period';

/** The claim's fields, with the In/Out pair after amount. */
const FIELDS: BooksColumnField[] = [
  ...[...IDENTIFIER_FIELDS, ...FLAG_FIELDS].flatMap((f): BooksColumnField[] =>
    f === 'amount' ? ['amount', 'amount_in', 'amount_out'] : [f],
  ),
  ...BOOKS_KEPT_FIELDS,
];
/** Columns kept beside the claim and never compared: no constant, since a constant would describe every line alike. */
const KEPT = new Set<BooksColumnField>(BOOKS_KEPT_FIELDS);
const PAIR = new Set<BooksColumnField>(['amount_in', 'amount_out']);

const HELP: Partial<Record<BooksColumnField, string>> = {
  request_id: 'identifier',
  transaction_id: 'identifier',
  hash: 'identifier',
  time: 'Unix s / ms, ISO 8601, 2026-01-31 10:00, 31/01/2026 10:00, Jan 31, 2026…',
  amount: 'compared within the amount tolerance',
  amount_in: 'In (Debit, Received): the amount of a Deposit',
  amount_out: 'Out (Credit, Sent): the amount of a Withdrawal',
  fee: 'compared within the amount tolerance',
  amount_actual: 'compared within the amount tolerance',
  to: 'case-insensitive on EVM chains',
  description:
    'the books’ words for the line (Memo, Narrative): kept with the claim and shown in the results and the report, never compared',
};

const SIGN_LABELS: Record<(typeof BOOKS_AMOUNT_SIGNS)[number], string> = {
  positive_deposit: 'signed: + Deposit, − Withdrawal',
  positive_withdrawal: 'signed: + Withdrawal, − Deposit',
};
const WORDS: Partial<Record<string, readonly string[]>> = { type: LEDGER_TYPES, status: LEDGER_STATUSES };

export function NewRun() {
  const w = useRunWizard();
  const wallets = useReference((s) => s.wallets.data);
  const go = useRoute((s) => s.go);

  if (w.step === 'choose') {
    return (
      <div className="card wizard">
        <div className="wizard-body">
          <FileDrop
            label={
              w.busy === 'detect' ? `Reading ${w.file?.name ?? 'the file'}…` : 'Drop the books file (CSV) here, or press Enter to choose it'
            }
            hint="One row per transaction as your books state it: an identifier (hash, transaction ID or request ID) and the fields to compare"
            accept=".csv,.txt,text/csv"
            onFile={(f) => void w.chooseFile(f)}
            disabled={w.busy === 'detect'}
          />
          {w.error && <ErrorBox title={`Could not read ${w.file?.name ?? 'the file'}`} message={w.error} />}
        </div>
      </div>
    );
  }

  const d = w.detect!;
  const columns = w.mapping.columns ?? {};
  const constants = w.mapping.constants ?? {};
  const running = w.busy === 'run';
  const identifiers = IDENTIFIER_FIELDS.some((f) => columns[f] || constants[f]);
  const compared = FLAG_FIELDS.some((f) => columns[f] || constants[f]) || Boolean(columns.amount_in);
  const fileProblem = w.preview?.problems[0];
  const problem = !identifiers
    ? 'Map at least one identifier: hash, transaction_id or request_id.'
    : !compared
      ? 'Map at least one field to compare.'
      : fileProblem
        ? `${fileProblem.field}: ${fileProblem.reason}`
        : w.previewError
          ? w.previewError
          : undefined;
  const readAs = w.preview?.read_as;
  const run = async () => {
    const result = await w.run();
    if (result) go({ screen: 'reconcile', sub: 'run', id: result.run_id });
  };

  return (
    <div className="card wizard">
      <div className="wizard-body">
        <div className="file-summary">
          <div>
            <strong className="mono">{w.file?.name}</strong>
            <span className="muted">
              {' '}
              · {formatBytes(w.file?.size ?? 0)} · {d.headers.length} columns
              {d.rows_estimate !== null && ` · about ${formatCount(d.rows_estimate)} rows`}
            </span>
          </div>
          <button type="button" className="btn btn-ghost btn-small" onClick={w.reset} disabled={running}>
            Choose another file
          </button>
        </div>

        <div className="split">
          <div className="mapping-wrap">
            <table className="table mapping" aria-label="Books column mapping">
              <thead>
                <tr>
                  <th scope="col">Verification field</th>
                  <th scope="col">Books column</th>
                  <th scope="col">or a constant</th>
                  <th scope="col">Sample</th>
                </tr>
              </thead>
              <tbody>
                {FIELDS.map((f) => {
                  const header = columns[f];
                  const samples = sampleOf(d.sample, header);
                  return (
                    <tr
                      key={f}
                      className={header || (!PAIR.has(f) && !KEPT.has(f) && constants[f as keyof typeof constants]) ? 'mapped' : undefined}
                    >
                      <th scope="row">
                        <span className="mono">{f}</span>
                        {HELP[f] && <div className="muted small">{HELP[f]}</div>}
                      </th>
                      <td>
                        <ColumnSelect
                          field={f}
                          headers={d.headers}
                          value={header}
                          emptyLabel={PAIR.has(f) ? '— no In/Out pair —' : KEPT.has(f) ? '— none —' : '— not compared —'}
                          disabled={running}
                          onChange={(h) => w.setColumn(f, h)}
                        />
                      </td>
                      <td>
                        {PAIR.has(f) ? (
                          <span className="muted small">{f === 'amount_in' ? 'gives type Deposit' : 'gives type Withdrawal'}</span>
                        ) : KEPT.has(f) ? (
                          <span className="muted small">kept, not compared</span>
                        ) : (
                          <ConstantInput
                            field={f}
                            value={constants[f as keyof typeof constants]}
                            disabled={running}
                            onChange={(v) => w.setConstant(f as keyof typeof constants, v)}
                          />
                        )}
                      </td>
                      <SampleCell samples={samples} />
                    </tr>
                  );
                })}
              </tbody>
            </table>
            <Translations />
          </div>

          <aside className="side-form">
            <h3>How the books write it</h3>
            <Field label="Amount column" htmlFor="rc-sign" hint="A signed amount gives the type by its sign">
              <select
                id="rc-sign"
                value={w.mapping.amount_sign ?? ''}
                onChange={(e) => w.patchMapping({ amount_sign: (e.target.value || undefined) as BooksMapping['amount_sign'] })}
                disabled={running}
              >
                <option value="">not signed</option>
                {BOOKS_AMOUNT_SIGNS.map((v) => (
                  <option key={v} value={v}>
                    {SIGN_LABELS[v]}
                  </option>
                ))}
              </select>
            </Field>
            <Field
              label="Decimal separator"
              htmlFor="rc-decimal"
              hint={
                (w.mapping.decimal_separator ?? '.') === 'auto'
                  ? readAs?.decimal_separator
                    ? `From the file: ${readAs.decimal_separator === ',' ? 'decimal comma' : 'decimal point'}`
                    : 'From the file'
                  : undefined
              }
            >
              <select
                id="rc-decimal"
                value={w.mapping.decimal_separator ?? '.'}
                onChange={(e) => w.patchMapping({ decimal_separator: e.target.value as BooksMapping['decimal_separator'] })}
                disabled={running}
              >
                <option value="auto">from the file</option>
                <option value=".">. (1234.56)</option>
                <option value=",">, (1234,56)</option>
              </select>
            </Field>
            <Field label="Thousands separator in amounts" htmlFor="rc-thousands">
              <select
                id="rc-thousands"
                value={w.mapping.thousands_separator ?? ''}
                onChange={(e) => w.patchMapping({ thousands_separator: e.target.value as BooksMapping['thousands_separator'] })}
                disabled={running}
              >
                <option value="auto">the other of . and , (or a space)</option>
                <option value="">none</option>
                <option value=",">, (1,234.5)</option>
                <option value=".">. (1.234,5)</option>
                <option value=" ">space</option>
                <option value="'">'</option>
                <option value="_">_</option>
              </select>
            </Field>
            <Field
              label="Dates like 03/01/2026"
              htmlFor="rc-date-order"
              hint={
                (w.mapping.date_order ?? 'auto') === 'auto' && readAs?.date_order
                  ? `From the file: ${readAs.date_order === 'day_first' ? 'day first' : 'month first'}`
                  : undefined
              }
            >
              <select
                id="rc-date-order"
                value={w.mapping.date_order ?? 'auto'}
                onChange={(e) => w.patchMapping({ date_order: e.target.value as BooksMapping['date_order'] })}
                disabled={running}
              >
                <option value="auto">from the file</option>
                <option value="day_first">day first (31/01/2026)</option>
                <option value="month_first">month first (01/31/2026)</option>
              </select>
            </Field>
            <Field
              label="Time zone of times without one"
              htmlFor="rc-zone"
              hint="An IANA name (Europe/Berlin); empty: the UTC offset below"
            >
              <input
                id="rc-zone"
                className="mono"
                value={w.mapping.time_zone ?? ''}
                placeholder="UTC offset"
                onChange={(e) => w.patchMapping({ time_zone: e.target.value.trim() || undefined })}
                disabled={running}
              />
            </Field>
            <Field label="UTC offset of times without a zone" htmlFor="rc-offset">
              <input
                id="rc-offset"
                className="mono"
                value={w.mapping.utc_offset ?? '+00:00'}
                onChange={(e) => w.patchMapping({ utc_offset: e.target.value })}
                disabled={running}
              />
            </Field>
            <h3>Tolerances</h3>
            <Field
              label="Amount tolerance"
              htmlFor="rc-amount-delta"
              hint={`|claimed − recorded| ≤ this, for amount, fee and amount_actual. Default ${DEFAULT_AMOUNT_DELTA}.`}
            >
              <input
                id="rc-amount-delta"
                className="mono"
                inputMode="decimal"
                value={w.amountDelta}
                onChange={(e) => w.patch({ amountDelta: e.target.value })}
                disabled={running}
              />
            </Field>
            <Field
              label="Time is the moment"
              htmlFor="rc-time-type"
              hint="Which recorded time the books' time is compared with. Default Created."
            >
              <select
                id="rc-time-type"
                value={w.timeType}
                onChange={(e) => w.patch({ timeType: e.target.value as TimeType })}
                disabled={running}
              >
                {TIME_TYPES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            </Field>
            <Field label="Time tolerance (seconds)" htmlFor="rc-time-delta" hint={`Default ${DEFAULT_TIME_DELTA} s.`}>
              <input
                id="rc-time-delta"
                className="mono"
                inputMode="numeric"
                value={w.timeDelta}
                onChange={(e) => w.patch({ timeDelta: e.target.value })}
                disabled={running}
              />
            </Field>
            <h3>Scope</h3>
            <Field label="Wallet" htmlFor="rc-wallet" hint="Limit lookups to one wallet">
              <select id="rc-wallet" value={w.walletId} onChange={(e) => w.patch({ walletId: e.target.value })} disabled={running}>
                <option value="">All wallets</option>
                {(wallets ?? []).map((x) => (
                  <option key={x.wallet_id} value={x.wallet_id} title={x.wallet_id}>
                    {x.name || shorten(x.wallet_id, 8, 4)}
                  </option>
                ))}
              </select>
            </Field>
            <PeriodFields disabled={running} />
            <Field label="Run label" htmlFor="rc-label">
              <input id="rc-label" value={w.label} onChange={(e) => w.patch({ label: e.target.value })} disabled={running} />
            </Field>
          </aside>
        </div>

        <BooksPreviewTable />

        <div className="wizard-footer wizard-actions-sticky">
          {w.error && <ErrorBox title="The run did not finish" message={w.error} />}
          {running ? (
            <div className="busy" aria-live="polite">
              <div className="busy-line">
                <Spinner /> <span>Reconciling…</span>
                {w.progress && (
                  <span className="muted num">
                    {formatCount(w.progress.done)}
                    {w.progress.total ? ` of ${formatCount(w.progress.total)}` : ''} rows
                  </span>
                )}
              </div>
              <ProgressBar done={w.progress?.done ?? 0} total={w.progress?.total} label="Reconciling" />
            </div>
          ) : (
            <div className="wizard-actions">
              {problem && <span className="error-text">{problem}</span>}
              <button
                type="button"
                className="btn btn-primary"
                disabled={Boolean(problem) || w.previewing || !w.preview}
                onClick={() => void run()}
              >
                Run reconciliation
              </button>
            </div>
          )}
        </div>
      </div>
    </div>
  );
}

/**
 * Value translations: the values of each translatable field's column in the first rows, each with
 * the claim value it stands for ("Receive" is a Deposit). Type and status choose among their
 * words; chain and token take any text.
 */
function Translations() {
  const w = useRunWizard();
  const d = w.detect!;
  const running = w.busy === 'run';
  const tables = BOOKS_TRANSLATED_FIELDS.flatMap((field) => {
    const column = w.mapping.columns?.[field];
    if (!column) return [];
    const table = w.mapping.translations?.[field] ?? {};
    const words = WORDS[field];
    const seen = new Map<string, string>();
    for (const r of d.sample) {
      const v = (r[column] ?? '').trim();
      if (v && !seen.has(v.toLowerCase()) && !words?.some((x) => x.toLowerCase() === v.toLowerCase())) seen.set(v.toLowerCase(), v);
    }
    for (const from of Object.keys(table)) if (!seen.has(from.trim().toLowerCase())) seen.set(from.trim().toLowerCase(), from);
    const values = [...seen.values()].slice(0, 12);
    return values.length ? [{ field, column, values, table, words }] : [];
  });
  if (tables.length === 0) return null;
  const lookup = (table: Record<string, string>, v: string) =>
    Object.entries(table).find(([k]) => k.trim().toLowerCase() === v.trim().toLowerCase());
  return (
    <div className="subsection">
      <h3>Values the books write their own way</h3>
      {tables.map(({ field, column, values, table, words }) => (
        <details key={field} open={Boolean(words) || Object.keys(table).length > 0}>
          <summary>
            <span className="mono">{field}</span> from {column}: {values.length} value{values.length === 1 ? '' : 's'}
          </summary>
          <table className="table mapping" aria-label={`Translations of ${field}`}>
            <thead>
              <tr>
                <th scope="col">
                  {column} <span className="muted">→</span> <span className="mono">{field}</span>
                </th>
                <th scope="col">means</th>
              </tr>
            </thead>
            <tbody>
              {values.map((v) => {
                const hit = lookup(table, v);
                const set = (to: string) => w.setTranslation(field, hit?.[0] ?? v, to);
                return (
                  <tr key={v} className={hit ? 'mapped' : undefined}>
                    <th scope="row" className="mono">
                      {v}
                    </th>
                    <td>
                      {words ? (
                        <select
                          aria-label={`${field} for ${v}`}
                          value={hit?.[1] ?? ''}
                          onChange={(e) => set(e.target.value)}
                          disabled={running}
                        >
                          <option value="">— as written —</option>
                          {words.map((x) => (
                            <option key={x}>{x}</option>
                          ))}
                        </select>
                      ) : (
                        <input
                          aria-label={`${field} for ${v}`}
                          className="mono"
                          value={hit?.[1] ?? ''}
                          placeholder="as written"
                          onChange={(e) => set(e.target.value)}
                          disabled={running}
                        />
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </details>
      ))}
    </div>
  );
}
