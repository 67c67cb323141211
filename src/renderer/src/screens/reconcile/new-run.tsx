import {
  DEFAULT_AMOUNT_DELTA,
  DEFAULT_TIME_DELTA,
  FLAG_FIELDS,
  IDENTIFIER_FIELDS,
  TIME_TYPES,
  type TimeType,
  type VerifyField,
} from '../../../../shared/reconcile';
import { FileDrop } from '../../components/file-drop';
import { ColumnSelect, ConstantInput, SampleCell, sampleOf } from '../../components/mapping';
import { ErrorBox, Field, ProgressBar, Spinner } from '../../components/ui';
import { formatBytes, formatCount, shorten } from '../../lib/format';
import { useReference } from '../../stores/reference';
import { useRoute } from '../../stores/route';
import { useRunWizard } from './store';
import { PeriodFields } from './period';

const FIELDS: VerifyField[] = [...IDENTIFIER_FIELDS, ...FLAG_FIELDS];

const HELP: Partial<Record<VerifyField, string>> = {
  request_id: 'identifier',
  transaction_id: 'identifier',
  hash: 'identifier',
  time: 'Unix s / ms, ISO 8601 or YYYY-MM-DD HH:mm:ss',
  amount: 'compared within the amount tolerance',
  fee: 'compared within the amount tolerance',
  amount_actual: 'compared within the amount tolerance',
  to: 'case-insensitive on EVM chains',
};

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
  const compared = FLAG_FIELDS.some((f) => columns[f] || constants[f]);
  const problem = !identifiers
    ? 'Map at least one identifier: hash, transaction_id or request_id.'
    : !compared
      ? 'Map at least one field to compare.'
      : undefined;
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
                    <tr key={f} className={header || constants[f] ? 'mapped' : undefined}>
                      <th scope="row">
                        <span className="mono">{f}</span>
                        {HELP[f] && <div className="muted small">{HELP[f]}</div>}
                      </th>
                      <td>
                        <ColumnSelect
                          field={f}
                          headers={d.headers}
                          value={header}
                          emptyLabel="— not compared —"
                          disabled={running}
                          onChange={(h) => w.setColumn(f, h)}
                        />
                      </td>
                      <td>
                        <ConstantInput field={f} value={constants[f]} disabled={running} onChange={(v) => w.setConstant(f, v)} />
                      </td>
                      <SampleCell samples={samples} />
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>

          <aside className="side-form">
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
            <Field label="Times without a zone are in" htmlFor="rc-offset">
              <input
                id="rc-offset"
                className="mono"
                value={w.mapping.utc_offset ?? '+00:00'}
                onChange={(e) => w.patchMapping({ utc_offset: e.target.value })}
                disabled={running}
              />
            </Field>
            <Field label="Thousands separator in amounts" htmlFor="rc-thousands">
              <select
                id="rc-thousands"
                value={w.mapping.thousands_separator ?? ''}
                onChange={(e) => w.patchMapping({ thousands_separator: e.target.value as '' })}
                disabled={running}
              >
                <option value="">none</option>
                <option value=",">, (1,234.5)</option>
                <option value=" ">space</option>
                <option value="'">'</option>
                <option value="_">_</option>
              </select>
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
              <button type="button" className="btn btn-primary" disabled={Boolean(problem)} onClick={() => void run()}>
                Run reconciliation
              </button>
            </div>
          )}
        </div>
      </div>
    </div>
  );
}
