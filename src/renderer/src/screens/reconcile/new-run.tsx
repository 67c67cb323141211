import { useEffect, useState } from 'react';
import {
  DEFAULT_AMOUNT_DELTA,
  DEFAULT_TIME_DELTA,
  FLAG_FIELDS,
  IDENTIFIER_FIELDS,
  TIME_TYPES,
  type TimeType,
} from '../../../../shared/reconcile';
import { FileDrop } from '../../components/file-drop';
import { ErrorBox, Field, FormDialog, ProgressBar, Spinner } from '../../components/ui';
import { formatBytes, formatCount, formatTime, shorten } from '../../lib/format';
import { useReference } from '../../stores/reference';
import { useRoute } from '../../stores/route';
import { BooksPreviewTable } from './books-preview';
import { FormatFields, MappingTable, Translations } from './mapping-editor';
import { useRunWizard } from './store';
import { PeriodFields } from './period';

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

        <SavedMappingBar disabled={running} />

        <div className="split">
          <div className="mapping-wrap">
            <MappingTable headers={d.headers} sample={d.sample} mapping={w.mapping} onChange={w.setMapping} disabled={running} />
            <Translations sample={d.sample} mapping={w.mapping} onChange={w.setMapping} disabled={running} />
          </div>

          <aside className="side-form">
            <h3>How the books write it</h3>
            <FormatFields mapping={w.mapping} onChange={w.setMapping} disabled={running} readAs={readAs} />
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
 * Which mapping reads the file: one saved for this layout (proposed when the file was dropped), any
 * other saved one, or the first guess from the columns; and "Save mapping as…" to keep the one on
 * screen under a name. A run keeps its mapping for the next file of this layout by itself.
 */
function SavedMappingBar({ disabled }: { disabled: boolean }) {
  const w = useRunWizard();
  const go = useRoute((s) => s.go);
  const wallets = useReference((s) => s.wallets.data);
  const [saving, setSaving] = useState(false);
  const refreshSaved = w.refreshSaved;
  useEffect(() => void refreshSaved(), [refreshSaved]);
  const list = w.savedList ?? [];
  const mine = list.filter((m) => m.same_layout);
  const others = list.filter((m) => !m.same_layout);
  const walletName = (id: string | null) =>
    id === null ? 'all wallets' : (wallets?.find((x) => x.wallet_id === id)?.name ?? '') || shorten(id, 8, 4);
  const status = w.saved
    ? `Saved as “${w.saved.name}” for ${walletName(w.saved.wallet_id)}, last used ${formatTime(w.saved.used_at).slice(0, 10)}${
        w.edited ? ' · changed since, not saved yet' : ''
      }`
    : 'A first guess from the columns: check it against the preview below.';
  return (
    <div className="saved-mapping-bar">
      <Field label="Use saved mapping" htmlFor="rc-saved-mapping">
        <select id="rc-saved-mapping" value={w.saved?.mapping_id ?? ''} onChange={(e) => w.useSaved(e.target.value)} disabled={disabled}>
          <option value="">First guess from the columns</option>
          {mine.length > 0 && (
            <optgroup label="Saved for this layout">
              {mine.map((m) => (
                <option key={m.mapping_id} value={m.mapping_id}>
                  {m.name} ({walletName(m.wallet_id)})
                </option>
              ))}
            </optgroup>
          )}
          {others.length > 0 && (
            <optgroup label="Saved for other layouts">
              {others.map((m) => (
                <option key={m.mapping_id} value={m.mapping_id}>
                  {m.name} ({walletName(m.wallet_id)})
                </option>
              ))}
            </optgroup>
          )}
        </select>
      </Field>
      <p className="muted small saved-mapping-status" data-testid="saved-mapping-status">
        {status}
      </p>
      <div className="row-actions">
        <button type="button" className="btn btn-small" onClick={() => setSaving(true)} disabled={disabled}>
          Save mapping as…
        </button>
        <button
          type="button"
          className="btn btn-ghost btn-small"
          onClick={() => go({ screen: 'reconcile', sub: 'mappings', id: '' })}
          disabled={disabled}
        >
          Saved mappings
        </button>
      </div>
      {saving && <SaveAsDialog onClose={() => setSaving(false)} />}
    </div>
  );
}

function SaveAsDialog({ onClose }: { onClose: () => void }) {
  const w = useRunWizard();
  const [name, setName] = useState(w.saved?.named ? w.saved.name : '');
  const taken = (w.savedList ?? []).find((m) => m.name.toLowerCase() === name.trim().toLowerCase());
  return (
    <FormDialog
      id="save-mapping"
      title="Save mapping as"
      submitLabel={taken ? 'Replace' : 'Save'}
      busyLabel="Saving…"
      canSubmit={name.trim() !== ''}
      onClose={onClose}
      action={async () => {
        await w.saveAs(name.trim(), taken !== undefined);
        onClose();
      }}
    >
      <Field
        label="Name"
        htmlFor="save-mapping-name"
        hint={
          taken
            ? `“${taken.name}” is saved already: saving replaces it with this mapping.`
            : 'Proposed for the next books file with these columns, for this wallet first.'
        }
      >
        <input id="save-mapping-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} autoFocus />
      </Field>
    </FormDialog>
  );
}
