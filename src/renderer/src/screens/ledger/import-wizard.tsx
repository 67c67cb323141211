import { useEffect, useRef } from 'react';
import {
  LEDGER_FIELDS,
  MAPPING_EXTRA_INPUTS,
  RECORD_TIME_FIELDS,
  REQUIRED_FIELDS,
  type ImportReport,
  type MappingConstant,
  type MappingInput,
  type RowUpdate,
} from '../../../../shared/ledger';
import { DataTable, type SimpleColumn } from '../../components/data-table';
import { FileDrop } from '../../components/file-drop';
import { ColumnSelect, ConstantInput, SampleCell, sampleOf } from '../../components/mapping';
import { ErrorBox, Field, ProgressBar, Spinner } from '../../components/ui';
import { formatBytes, formatCount, formatTime } from '../../lib/format';
import { Questions, ReadAsEditor, WalletSelect } from './choices';
import './import-wizard.css';
import { ParsedRows } from './parsed-rows';
import { ImportCounts, ImportReportView, ReadAsSummary, Rejections } from './report';
import { IgnoredTokens, UnknownTokens } from './unknown-tokens';
import { useImportWizard, type WizardStep } from './wizard-store';

const STEPS: { key: WizardStep; label: string }[] = [
  { key: 'choose', label: 'Choose file' },
  { key: 'map', label: 'Read the file' },
  { key: 'preview', label: 'Preview' },
  { key: 'done', label: 'Report' },
];

const FIELD_HELP: Partial<Record<MappingInput, string>> = {
  from: 'sender; with the wallet address it decides Deposit or Withdrawal',
  amount_in: 'incoming value (Etherscan Value_IN): a Deposit when non-zero',
  amount_out: 'outgoing value (Etherscan Value_OUT): a Withdrawal when non-zero',
  token_contract: 'token contract, looked up in the catalogue on the row’s chain',
  token_symbol: 'token symbol, looked up in the catalogue',
  error: 'an error cell (Etherscan ErrCode, Tron contractRet): any text but SUCCESS makes the record Failed',
};

const CONSTANT_FIELDS = new Set<string>([...LEDGER_FIELDS, 'wallet_address']);

function Steps({ step }: { step: WizardStep }) {
  const at = STEPS.findIndex((s) => s.key === step);
  return (
    <ol className="steps" aria-label="Import steps">
      {STEPS.map((s, i) => (
        <li
          key={s.key}
          className={i < at ? 'step step-done' : i === at ? 'step step-now' : 'step'}
          aria-current={i === at ? 'step' : undefined}
        >
          <span className="step-n">{i + 1}</span> {s.label}
        </li>
      ))}
    </ol>
  );
}

/** `finishing`: what happens once every byte has been read (a large file's indexes are built then, a few seconds a million rows). */
function Busy({ label, finishing }: { label: string; finishing: string }) {
  const progress = useImportWizard((s) => s.progress);
  const done = progress?.bytes ?? progress?.done ?? 0;
  const total = progress?.totalBytes ?? progress?.total;
  const read = progress?.bytes !== undefined && total !== undefined && done >= total;
  return (
    <div className="busy" aria-live="polite">
      <div className="busy-line">
        <Spinner /> <span>{read ? finishing : label}</span>
        {progress && (
          <span className="muted num">
            {formatCount(progress.done)} rows{progress.total ? ` of ${formatCount(progress.total)}` : ''}
          </span>
        )}
      </div>
      <ProgressBar done={done} total={total} label={label} />
    </div>
  );
}

function ChooseStep() {
  const { chooseFile, busy, error, file } = useImportWizard();
  return (
    <div className="wizard-body">
      <FileDrop
        label={busy === 'detect' ? `Reading ${file?.name ?? 'the file'}…` : 'Drop a ledger file here, or press Enter to choose one'}
        hint="CSV or JSON: the NPS native format, an Etherscan or Tronscan export, or any spreadsheet export you map by hand"
        accept=".csv,.json,.txt,text/csv,application/json"
        onFile={(f) => void chooseFile(f)}
        disabled={busy === 'detect'}
      />
      {error && <ErrorBox title={`Could not read ${file?.name ?? 'the file'}`} message={error} />}
    </div>
  );
}

function MapStep() {
  const w = useImportWizard();
  const detect = w.detect!;
  const columns = w.mapping.columns ?? {};
  const constants = (w.mapping.constants ?? {}) as Partial<Record<MappingConstant, string>>;
  const fields: MappingInput[] = [...LEDGER_FIELDS, ...MAPPING_EXTRA_INPUTS];
  const date = w.mapping.date ?? {};
  const number = w.mapping.number ?? {};
  const usedHeaders = new Set(Object.values(columns));
  const unused = detect.headers.filter((h) => !usedHeaders.has(h));
  const busy = w.busy === 'preview';
  const description = w.presets?.find((p) => p.name === w.preset)?.description;
  // The service's questions, less those answered here since the file was last read: a wallet chosen
  // (or a new one's name still to type), a token chosen.
  // A file of its header alone (an explorer's export of an address with no such transfers): said
  // at once, rather than after questions whose answers would import nothing.
  const empty = detect.row_estimate === 0;
  const questions = empty
    ? []
    : detect.needs.filter(
        (n) => !(n.field === 'wallet_id' && (w.walletId || w.walletName !== null)) && !(n.field === 'token_id' && w.choices.token_id),
      );
  const walletMissing = questions.some((n) => n.field === 'wallet_id');
  const nameMissing = !w.walletId && w.walletName !== null && w.walletName.trim() === '';
  const problem = detect.problem;
  const open = questions.length;
  const blocked = empty
    ? 'The file has no data rows: there is nothing to import.'
    : w.checking
      ? 'Reading the file with your choices…'
      : w.detectError
        ? 'The file could not be read with these choices: see the message above.'
        : problem
          ? 'The file cannot be imported as it is read now: see the problem above.'
          : open
            ? `Answer the question${open > 1 ? 's' : ''} above to continue.`
            : nameMissing
              ? 'Name the new wallet to continue.'
              : null;
  return (
    <div className="wizard-body">
      <div className="file-summary">
        <div>
          <strong className="mono">{detect.file_name}</strong>
          <span className="muted">
            {' '}
            · {detect.format.toUpperCase()} · {formatBytes(detect.file_size)} · {detect.encoding}
            {detect.row_estimate !== null && (empty ? ' · no data rows' : ` · about ${formatCount(detect.row_estimate)} rows`)} ·{' '}
            {detect.headers.length} columns
          </span>
        </div>
        <div className="detected" data-testid="detected-preset">
          {w.detectedPreset ? (
            <>
              Detected: <strong>{w.presets?.find((p) => p.name === w.detectedPreset)?.label ?? w.detectedPreset}</strong>
            </>
          ) : (
            <>No preset matched this header: map the columns below.</>
          )}
        </div>
      </div>

      <div className="form-row">
        <Field label="Preset" htmlFor="imp-preset" hint="How the columns are read: see the column mapping below">
          <select id="imp-preset" value={w.preset} onChange={(e) => w.usePreset(e.target.value)} disabled={busy}>
            {(w.presets ?? []).map((p) => (
              <option key={p.name} value={p.name}>
                {p.label}
                {p.name === w.detectedPreset ? ' (detected)' : ''}
              </option>
            ))}
            <option value="custom">Custom mapping (as below)</option>
          </select>
        </Field>
        {!walletMissing && !empty && (
          <Field label="Wallet for every row" htmlFor="imp-wallet" hint="Needed when the file has no wallet_id column (explorer exports)">
            <WalletSelect id="imp-wallet" disabled={busy} />
          </Field>
        )}
      </div>

      <div className={w.checking ? 'wizard-reading is-loading' : 'wizard-reading'} aria-busy={w.checking}>
        <Questions needs={questions} chainId={w.choices.chain_id ?? detect.read_as.chain_id} />
        <ReadAsEditor />
        {w.detectError && <ErrorBox title="The file could not be read with these choices" message={w.detectError} />}
        {empty && (
          <div className="banner banner-info" role="status" data-testid="detect-empty">
            <strong>Nothing to import</strong>
            <span>
              The file has a header and no data rows (an explorer writes such a file for an address with none of these transfers). Choose
              another file.
            </span>
          </div>
        )}
        {problem !== null && !empty && (
          <div className="banner banner-bad" role="alert" data-testid="detect-problem">
            <strong>The file cannot be imported as it is read now</strong>
            <span>{problem}</span>
          </div>
        )}
        {w.addedChains.length > 0 && (
          <p className="text-good" role="status" data-testid="added-chains">
            Added to the catalogue: chain <span className="mono">{w.addedChains.map((c) => `${c.chain_id} (${c.name})`).join(', ')}</span>
            {detect.read_as.chain_id !== null && (
              <>
                ; the file is read on <span className="mono">{detect.read_as.chain_id}</span>
              </>
            )}
            .
          </p>
        )}
        <UnknownTokens tokens={detect.unknown_tokens} firstRows onAdd={w.addTokens} onIgnore={w.ignoreToken} />
        <IgnoredTokens tokens={detect.ignored_tokens} firstRows />
        {w.addedTokens.length > 0 && (
          <p className="text-good" role="status">
            Added to the catalogue:{' '}
            <span className="mono">{w.addedTokens.map((t) => `${t.token_id} (decimal ${t.decimal})`).join(', ')}</span>; the rows below are
            read with {w.addedTokens.length === 1 ? 'it' : 'them'}.
          </p>
        )}
        {detect.parsed.length > 0 ? (
          <ParsedRows rows={detect.parsed} />
        ) : (
          open > 0 &&
          problem === null && <p className="muted">The first rows are shown here, as they will be read, once the questions are answered.</p>
        )}
      </div>

      <details className="mapping-details" open={w.detectedPreset === null}>
        <summary>
          <strong>Column mapping</strong>{' '}
          <span className="muted">
            {w.preset === 'custom' ? 'custom' : (w.presets?.find((p) => p.name === w.preset)?.label ?? w.preset)} ·{' '}
            {detect.headers.length - unused.length} of {detect.headers.length} columns read
          </span>
        </summary>
        {description && <p className="preset-description">{description}</p>}
        <div className="mapping-wrap">
          <table className="table mapping" aria-label="Column mapping">
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Read from column</th>
                <th scope="col">or the same value on every row</th>
                <th scope="col">Sample from the file</th>
              </tr>
            </thead>
            <tbody>
              {fields.map((f) => {
                const header = columns[f];
                const samples = sampleOf(detect.sample, header);
                const required = (REQUIRED_FIELDS as readonly string[]).includes(f);
                const mapped = Boolean(header || constants[f as MappingConstant]);
                return (
                  <tr key={f} className={mapped ? 'mapped' : undefined}>
                    <th scope="row">
                      <span className="mono">{f}</span>
                      {required && (
                        <span className="req" title="Needed, unless the preset derives it">
                          required
                        </span>
                      )}
                      {FIELD_HELP[f] && <div className="muted small">{FIELD_HELP[f]}</div>}
                    </th>
                    <td>
                      <ColumnSelect
                        field={f}
                        headers={detect.headers}
                        value={header}
                        emptyLabel="— not mapped —"
                        disabled={busy}
                        onChange={(h) => w.setColumn(f, h)}
                      />
                    </td>
                    <td>
                      {CONSTANT_FIELDS.has(f) ? (
                        <ConstantInput
                          field={f}
                          value={constants[f as MappingConstant]}
                          disabled={busy}
                          onChange={(v) => w.setConstant(f as MappingConstant, v)}
                        />
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <SampleCell samples={samples} whenEmpty={header ? 'empty in the first rows' : undefined} />
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        {unused.length > 0 && (
          <p className="muted small">
            Columns not read: <span className="mono">{unused.join(', ')}</span>
          </p>
        )}
        <div className="form-row">
          <Field label="Time format" htmlFor="imp-date">
            <select
              id="imp-date"
              value={date.format ?? 'auto'}
              onChange={(e) => w.patchMapping({ date: { ...date, format: e.target.value as 'auto' } })}
              disabled={busy}
            >
              <option value="auto">Automatic (Unix s / ms, ISO 8601, dates)</option>
              <option value="unix_s">Unix seconds</option>
              <option value="unix_ms">Unix milliseconds</option>
              <option value="iso">ISO 8601</option>
              <option value="YYYY-MM-DD HH:mm:ss">YYYY-MM-DD HH:mm:ss</option>
              <option value="YYYY/MM/DD HH:mm:ss">YYYY/MM/DD HH:mm:ss</option>
              <option value="excel">Excel serial days</option>
            </select>
          </Field>
          <Field label="Thousands separator" htmlFor="imp-thousands" hint="The decimal separator is under “Read as” above">
            <select
              id="imp-thousands"
              value={number.thousands_separator ?? 'auto'}
              onChange={(e) => w.patchMapping({ number: { ...number, thousands_separator: e.target.value as '' } })}
              disabled={busy}
            >
              <option value="auto">Automatic (the other of , and .)</option>
              <option value="">none</option>
              <option value=",">, (1,234)</option>
              <option value=".">. (1.234)</option>
              <option value=" ">space (1 234)</option>
              <option value="'">' (1'234)</option>
              <option value="_">_ (1_234)</option>
            </select>
          </Field>
        </div>
      </details>

      <div className="wizard-footer wizard-actions-sticky">
        {w.error && <ErrorBox title="The preview did not run" message={w.error} />}
        {busy ? (
          <Busy label="Checking every row…" finishing="Every row is read; working out what would change…" />
        ) : (
          <div className="wizard-actions">
            {blocked && (
              <span className="blocked-reason" role="status" data-testid="blocked-reason">
                {blocked}
              </span>
            )}
            <button type="button" className="btn btn-ghost" onClick={w.reset}>
              Choose another file
            </button>
            <button type="button" className="btn btn-primary" disabled={blocked !== null} onClick={() => void w.runPreview()}>
              Preview the import
            </button>
          </div>
        )}
      </div>
    </div>
  );
}

const TIME_FIELDS = new Set<string>(RECORD_TIME_FIELDS);

/** A value before or after an update: times (Unix ms) as UTC dates, amounts and text as they are. */
function ChangeValue({ field, value }: { field: string; value: string | null }) {
  if (value === null || value === '') return <span className="muted">not recorded</span>;
  if (TIME_FIELDS.has(field) && /^-?\d+$/.test(value))
    return (
      <span className="mono" title={`${value} (Unix ms)`}>
        {formatTime(Number(value))} UTC
      </span>
    );
  return <span className="mono break">{value}</span>;
}

/** Each field the update changes, as the record has it and as the row brings it: "amount: 1035 → 1.035". */
function Changes({ update }: { update: RowUpdate }) {
  if (update.changes.length === 0) return <span className="mono">{update.fields.join(', ')}</span>;
  return (
    <ul className="update-changes">
      {update.changes.map((c) => (
        <li key={c.field}>
          <span className="mono">{c.field}</span>: <ChangeValue field={c.field} value={c.before} /> →{' '}
          <ChangeValue field={c.field} value={c.after} />
        </li>
      ))}
    </ul>
  );
}

const updateColumns: SimpleColumn<RowUpdate>[] = [
  { key: 'row', header: 'Row', align: 'right', width: '72px', render: (u) => <span className="num">{u.row_number}</span> },
  { key: 'id', header: 'Transaction ID', width: '320px', render: (u) => <span className="mono">{u.transaction_id}</span> },
  { key: 'changes', header: 'Changes (the ledger’s value → the file’s)', render: (u) => <Changes update={u} /> },
];

function Updates({ report }: { report: ImportReport }) {
  if (report.updates.length === 0) return null;
  return (
    <section className="subsection">
      <h3>
        Records that {report.dry_run ? 'would change' : 'changed'} <span className="muted">(same transaction_id, different values)</span>
      </h3>
      <div className="scroll-box">
        <DataTable label="Updated records" columns={updateColumns} rows={report.updates} rowKey={(u) => `${u.row_number}`} />
      </div>
    </section>
  );
}

function TokensAdded({ again, onAgain }: { again: string; onAgain: () => void }) {
  const added = useImportWizard((s) => s.addedTokens);
  if (added.length === 0) return null;
  return (
    <div className="banner banner-good tokens-added" role="status">
      <span>
        Added to the catalogue: <span className="mono">{added.map((t) => t.token_id).join(', ')}</span>. Their rows are read once the file
        is read again.
      </span>
      <div>
        <button type="button" className="btn btn-primary btn-small" onClick={onAgain}>
          {again}
        </button>
      </div>
    </div>
  );
}

const rowsText = (n: number) => `${formatCount(n)} row${n === 1 ? '' : 's'}`;

/**
 * What the preview says first: the service's sentence, or a banner where nothing would be written.
 * Red only when no row can be read at all; a file already imported is no error.
 */
function PreviewMessage({ preview: p }: { preview: ImportReport }) {
  const writes = p.added + p.updated;
  if (writes === 0 && p.unchanged === 0 && p.rejected > 0)
    return (
      <div className="banner banner-bad" role="alert" data-testid="preview-message">
        <strong>This file cannot be imported: every row has a problem</strong>
        <span>{p.message}</span>
        <span className="small">
          Correct the rows listed below (or the mapping) and choose the file again. The ledger has not been touched.
        </span>
      </div>
    );
  if (writes === 0 && p.unchanged > 0)
    return (
      <div className="banner banner-info" role="status" data-testid="preview-message">
        <strong>
          Nothing new to import: {rowsText(p.unchanged)} {p.unchanged === 1 ? 'is' : 'are'} already in the ledger as{' '}
          {p.unchanged === 1 ? 'it is' : 'they are'}
          {p.rejected > 0 && `; ${formatCount(p.rejected)} rejected`}
        </strong>
        <span>{p.message}</span>
      </div>
    );
  return (
    <p className="lead" data-testid="preview-message">
      {p.message}
    </p>
  );
}

function PreviewStep() {
  const w = useImportWizard();
  const p = w.preview!;
  const writes = p.added + p.updated;
  const busy = w.busy === 'import' || w.busy === 'preview';
  // Tokens were added since this preview was made: its counts are stale until it is made again.
  const stale = w.previewStale;
  return (
    <div className="wizard-body">
      <div className={stale ? 'preview-figures is-loading' : 'preview-figures'} aria-busy={stale}>
        <PreviewMessage preview={p} />
        <ImportCounts report={p} />
      </div>
      {w.addedTokens.length > 0 && (
        <p className={stale ? 'muted' : 'text-good'} role="status" data-testid="preview-tokens-added">
          Added to the catalogue: <span className="mono">{w.addedTokens.map((t) => t.token_id).join(', ')}</span>.{' '}
          {stale
            ? 'Checking every row again with them…'
            : `The figures above read the file with ${w.addedTokens.length === 1 ? 'it' : 'them'}.`}
        </p>
      )}
      {p.wallets_created.length > 0 && (
        <p className="muted">
          New wallet{p.wallets_created.length > 1 ? 's' : ''}:{' '}
          {!w.walletId && w.walletName?.trim() ? (
            <strong title={p.wallets_created.join('\n')}>{w.walletName.trim()}</strong>
          ) : (
            <span className="mono">{p.wallets_created.join(', ')}</span>
          )}
        </p>
      )}
      <ReadAsSummary readAs={p.read_as} tokenId={w.choices.token_id} />
      <UnknownTokens tokens={p.unknown_tokens} firstRows={false} onAdd={w.addTokens} onIgnore={w.ignoreToken} />
      <IgnoredTokens tokens={p.ignored_tokens} firstRows={false} />
      <Rejections fileName={p.file_name} rejections={p.rejections} />
      <Updates report={p} />
      {w.error && (
        <ErrorBox
          title={stale ? 'The file could not be checked again; the ledger is unchanged' : 'The import did not run; the ledger is unchanged'}
          message={w.error}
        />
      )}
      {busy ? (
        w.busy === 'import' ? (
          <Busy label="Importing…" finishing="Every row is read; writing them to the ledger…" />
        ) : (
          <Busy label="Checking every row…" finishing="Every row is read; working out what would change…" />
        )
      ) : (
        <div className="wizard-actions">
          <button type="button" className="btn btn-ghost" onClick={() => w.back('map')}>
            Back to the mapping
          </button>
          {stale ? (
            <button type="button" className="btn btn-primary" onClick={() => void w.runPreview({ keepAdded: true })}>
              Check the file again
            </button>
          ) : (
            <button type="button" className="btn btn-primary" disabled={writes === 0} onClick={() => void w.runImport()}>
              {writes === 0 ? 'Nothing to import' : `Import ${formatCount(writes)} row${writes === 1 ? '' : 's'}`}
            </button>
          )}
        </div>
      )}
      {!busy && !stale && p.rejected > 0 && writes > 0 && (
        <p className="muted small">Rejected rows are left out; the rest lands in one step, or nothing does.</p>
      )}
    </div>
  );
}

function DoneStep({ onShowTransactions }: { onShowTransactions: () => void }) {
  const w = useImportWizard();
  const r = w.report!;
  const busy = w.busy === 'import';
  return (
    <div className="wizard-body">
      <ImportReportView report={r} tokenId={w.choices.token_id} onAddTokens={w.addTokens} />
      {!busy && <TokensAdded again="Import the file again" onAgain={() => void w.runImport()} />}
      <Updates report={r} />
      {w.error && <ErrorBox title="The import did not run; the ledger is unchanged" message={w.error} />}
      {busy ? (
        <Busy label="Importing…" finishing="Every row is read; writing them to the ledger…" />
      ) : (
        <div className="wizard-actions">
          <button type="button" className="btn" onClick={w.reset}>
            Import another file
          </button>
          <button type="button" className="btn btn-primary" onClick={onShowTransactions}>
            Show the transactions
          </button>
        </div>
      )}
    </div>
  );
}

export function ImportWizard({ onShowTransactions }: { onShowTransactions: () => void }) {
  const step = useImportWizard((s) => s.step);
  const body = useRef<HTMLDivElement>(null);
  const shown = useRef(step);
  useEffect(() => {
    if (shown.current === step) return;
    shown.current = step;
    // The control that moved the wizard on went with its step, and the focus with it to the page:
    // a keyboard or screen-reader user goes on from the new step, not from the top of the window.
    const active = document.activeElement;
    if (active === null || active === document.body) body.current?.focus();
  }, [step]);
  const n = STEPS.findIndex((s) => s.key === step);
  return (
    <div className="wizard card">
      <Steps step={step} />
      <div
        ref={body}
        tabIndex={-1}
        role="group"
        className="wizard-step"
        aria-label={`Step ${n + 1} of ${STEPS.length}: ${STEPS[n]?.label ?? ''}`}
      >
        {step === 'choose' && <ChooseStep />}
        {step === 'map' && <MapStep />}
        {step === 'preview' && <PreviewStep />}
        {step === 'done' && <DoneStep onShowTransactions={onShowTransactions} />}
      </div>
    </div>
  );
}
