import { useEffect, useState, type FormEvent } from 'react';
import type { ApiKey, KeyCreated } from '../../../shared/keys';
import { DEFAULT_RETENTION, RETENTION_LIMITS, type RetentionApplied } from '../../../shared/retention';
import { call, errorText, transportKind, type Progress } from '../api';
import { DataTable, type SimpleColumn } from '../components/data-table';
import {
  Badge,
  ConfirmDialog,
  CopyButton,
  Dialog,
  Empty,
  ErrorBox,
  Field,
  FormDialog,
  Loading,
  PageHeader,
  ProgressBar,
  Segmented,
  Stat,
} from '../components/ui';
import { WalletName, walletLabel } from '../components/wallet-name';
import { formatBytes, formatCount, formatTime, relativeTime, shorten } from '../lib/format';
import { useQuery } from '../lib/use-query';
import { useChangeKey } from '../stores/changes';
import { useReference } from '../stores/reference';
import { useAppUser } from '../stores/user';
import { chooseTheme, storedTheme, type Theme } from '../theme';

type Scope = { all: true } | { all: false; wallets: string[] };

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

function ScopeEditor({ value, onChange }: { value: Scope; onChange: (s: Scope) => void }) {
  const wallets = useReference((s) => s.wallets);
  const chosen = value.all ? [] : value.wallets;
  const [extra, setExtra] = useState(chosen.filter((w) => !wallets.data?.some((k) => k.wallet_id === w)).join('\n'));
  const known = wallets.data ?? [];
  const setExtraText = (text: string) => {
    setExtra(text);
    const typed = text.split(/[\s,]+/).filter(Boolean);
    onChange({ all: false, wallets: [...new Set([...chosen.filter((w) => known.some((k) => k.wallet_id === w)), ...typed])] });
  };
  return (
    <fieldset className="scope">
      <legend>Wallets this key may act on</legend>
      <label className="radio">
        <input type="radio" name="scope" checked={value.all} onChange={() => onChange({ all: true })} /> All wallets, present and future
      </label>
      <label className="radio">
        <input type="radio" name="scope" checked={!value.all} onChange={() => onChange({ all: false, wallets: chosen })} /> Only these
        wallets
      </label>
      {!value.all && (
        <div className="scope-list">
          {wallets.error && <p className="error-text">Could not load the wallets: {wallets.error}</p>}
          {known.map((w) => (
            <label key={w.wallet_id} className="check">
              <input
                type="checkbox"
                checked={chosen.includes(w.wallet_id)}
                onChange={(e) =>
                  onChange({ all: false, wallets: e.target.checked ? [...chosen, w.wallet_id] : chosen.filter((x) => x !== w.wallet_id) })
                }
              />
              <span title={w.wallet_id}>{w.name || 'Unnamed wallet'}</span> <span className="mono muted">{shorten(w.wallet_id, 8, 4)}</span>{' '}
              <span className="muted">· {w.transactions} tx</span>
            </label>
          ))}
          <Field label={known.length ? 'Other wallet IDs' : 'Wallet IDs'} htmlFor="scope-extra" hint="One UUID per line">
            <textarea
              id="scope-extra"
              className="mono"
              rows={2}
              value={extra}
              onChange={(e) => setExtraText(e.target.value)}
              spellCheck={false}
            />
          </Field>
        </div>
      )}
    </fieldset>
  );
}

/** A key's wallets: one by its name, several by their count, every name and ID on hover. */
function WalletList({ ids }: { ids: string[] }) {
  const wallets = useReference((s) => s.wallets.data);
  if (ids.length === 1) return <WalletName id={ids[0]!} />;
  return <span title={ids.map((id) => `${walletLabel(wallets, id)} ${id}`).join('\n')}>{ids.length} wallets</span>;
}

function scopeError(scope: Scope): string | undefined {
  if (scope.all) return undefined;
  if (scope.wallets.length === 0) return 'Choose at least one wallet, or allow all wallets.';
  const bad = scope.wallets.find((w) => !UUID_RE.test(w));
  return bad ? `${bad} is not a wallet ID (UUID).` : undefined;
}

const scopeValue = (s: Scope) => {
  const bad = scopeError(s);
  if (bad) throw new Error(bad);
  return s.all ? null : s.wallets;
};

function CreateKeyDialog({ onClose, onCreated }: { onClose: () => void; onCreated: () => void }) {
  const [label, setLabel] = useState('');
  const [scope, setScope] = useState<Scope>({ all: true });
  const [created, setCreated] = useState<KeyCreated>();
  const [stored, setStored] = useState(false);
  if (created) {
    // The secret is never shown again: the dialog stays until the user says it is kept somewhere.
    return (
      <Dialog
        title="API key created"
        onClose={onClose}
        dismissable={false}
        footer={
          <>
            <label className="check stored-check">
              <input type="checkbox" checked={stored} onChange={(e) => setStored(e.target.checked)} /> I have stored the secret
            </label>
            <button type="button" className="btn btn-primary" onClick={onClose} disabled={!stored}>
              Done
            </button>
          </>
        }
      >
        <p className="warning" role="alert">
          Copy the secret now. It is shown this once and never stored by the service; if it is lost, revoke the key and create another.
        </p>
        <dl className="kv kv-wide">
          <dt>Label</dt>
          <dd>{created.label}</dd>
          <dt>API key (BIZ-API-KEY)</dt>
          <dd className="with-action">
            <code className="mono break" data-testid="created-api-key">
              {created.api_key}
            </code>
            <CopyButton text={created.api_key} />
          </dd>
          <dt>API secret</dt>
          <dd className="with-action">
            <code className="mono break secret" data-testid="created-api-secret">
              {created.api_secret}
            </code>
            <CopyButton text={created.api_secret} label="Copy secret" />
          </dd>
          <dt>Wallets</dt>
          <dd>{created.wallets === null ? 'All wallets' : <WalletList ids={created.wallets} />}</dd>
        </dl>
      </Dialog>
    );
  }
  return (
    <FormDialog
      id="create-key"
      title="Create an API key"
      submitLabel="Create key"
      busyLabel="Creating…"
      canSubmit={label.trim() !== ''}
      onClose={onClose}
      action={async () => {
        setCreated(await call('keys-create', { label, wallets: scopeValue(scope) }));
        onCreated();
      }}
    >
      <p className="muted">The service makes an Ed25519 key pair, keeps the public key and shows you the secret once.</p>
      <Field label="Label" htmlFor="key-label" hint="Who or what uses the key, e.g. “Month-end script”">
        <input id="key-label" value={label} onChange={(e) => setLabel(e.target.value)} autoFocus maxLength={100} />
      </Field>
      <ScopeEditor value={scope} onChange={setScope} />
    </FormDialog>
  );
}

function AddKeyDialog({ onClose, onAdded }: { onClose: () => void; onAdded: () => void }) {
  const [label, setLabel] = useState('');
  const [publicKey, setPublicKey] = useState('');
  const [scope, setScope] = useState<Scope>({ all: true });
  return (
    <FormDialog
      id="add-key"
      title="Add a public key"
      submitLabel="Add key"
      busyLabel="Adding…"
      canSubmit={label.trim() !== '' && publicKey.trim() !== ''}
      onClose={onClose}
      action={async () => {
        await call('keys-add', { label, public_key: publicKey.trim(), wallets: scopeValue(scope) });
        onAdded();
        onClose();
      }}
    >
      <p className="muted">
        For a key pair made elsewhere (for example by an existing Cobo WaaS 2.0 client): only the public key comes here.
      </p>
      <Field label="Label" htmlFor="add-label">
        <input id="add-label" value={label} onChange={(e) => setLabel(e.target.value)} autoFocus maxLength={100} />
      </Field>
      <Field label="Ed25519 public key" htmlFor="add-public" hint="64 hex digits">
        <input
          id="add-public"
          className="mono"
          value={publicKey}
          onChange={(e) => setPublicKey(e.target.value)}
          spellCheck={false}
          autoComplete="off"
        />
      </Field>
      <ScopeEditor value={scope} onChange={setScope} />
    </FormDialog>
  );
}

function ScopeDialog({ apiKey, onClose, onSaved }: { apiKey: ApiKey; onClose: () => void; onSaved: () => void }) {
  const [scope, setScope] = useState<Scope>(apiKey.wallets === null ? { all: true } : { all: false, wallets: apiKey.wallets });
  const [label, setLabel] = useState(apiKey.label);
  return (
    <FormDialog
      id="edit-key"
      title={`Edit “${apiKey.label}”`}
      submitLabel="Save"
      canSubmit={label.trim() !== ''}
      onClose={onClose}
      action={async () => {
        await call('keys-update', { api_key: apiKey.api_key, label, wallets: scopeValue(scope) });
        onSaved();
        onClose();
      }}
    >
      <Field label="Label" htmlFor="edit-label">
        <input id="edit-label" value={label} onChange={(e) => setLabel(e.target.value)} maxLength={100} />
      </Field>
      <ScopeEditor value={scope} onChange={setScope} />
    </FormDialog>
  );
}

function RevokeDialog({ apiKey, onClose, onRevoked }: { apiKey: ApiKey; onClose: () => void; onRevoked: () => void }) {
  return (
    <ConfirmDialog
      title="Revoke this key?"
      keepLabel="Keep it"
      actLabel="Revoke key"
      action={async () => {
        await call('keys-revoke', { api_key: apiKey.api_key });
        onRevoked();
      }}
      onClose={onClose}
    >
      <p>
        Requests signed with <strong>{apiKey.label}</strong> (<span className="mono">{shorten(apiKey.api_key, 12, 8)}</span>) will be
        refused from now on (error 2002). This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

function KeysSection() {
  const othersChanged = useChangeKey('settings');
  const keys = useQuery(`keys:${othersChanged}`, () => call('keys-list', {}));
  const loadWallets = useReference((s) => s.loadWallets);
  const [dialog, setDialog] = useState<{ kind: 'create' | 'add' } | { kind: 'scope' | 'revoke'; key: ApiKey }>();
  const open = (d: NonNullable<typeof dialog>) => {
    loadWallets(true);
    setDialog(d);
  };
  const columns: SimpleColumn<ApiKey>[] = [
    { key: 'label', header: 'Label', render: (k) => <span className="strong">{k.label}</span> },
    {
      key: 'key',
      header: 'Public key',
      render: (k) => (
        <span className="mono" title={k.api_key}>
          {shorten(k.api_key, 10, 6)}
        </span>
      ),
    },
    {
      key: 'wallets',
      header: 'Wallets',
      render: (k) => (k.wallets === null ? 'All wallets' : <WalletList ids={k.wallets} />),
    },
    { key: 'created', header: 'Created (UTC)', render: (k) => <span className="num">{formatTime(k.created_at)}</span> },
    {
      key: 'used',
      header: 'Last used',
      render: (k) => (
        <span title={k.last_used_at ? formatTime(k.last_used_at) + ' UTC' : 'never used'}>{relativeTime(k.last_used_at)}</span>
      ),
    },
    { key: 'status', header: 'Status', render: (k) => <Badge>{k.revoked_at ? 'Revoked' : 'Active'}</Badge> },
    {
      key: 'actions',
      header: <span className="sr-only">Actions</span>,
      align: 'right',
      render: (k) =>
        k.revoked_at ? (
          <span className="muted">revoked {formatTime(k.revoked_at).slice(0, 10)}</span>
        ) : (
          <span className="row-actions">
            <button type="button" className="btn btn-small" onClick={() => open({ kind: 'scope', key: k })}>
              Edit
            </button>
            <button type="button" className="btn btn-small btn-danger-ghost" onClick={() => open({ kind: 'revoke', key: k })}>
              Revoke
            </button>
          </span>
        ),
    },
  ];
  return (
    <section className="card">
      <div className="card-head">
        <div>
          <h2>API keys</h2>
          <p className="muted">Keys sign requests to the reconciliation and ticket endpoints (Cobo WaaS 2.0 scheme: Ed25519).</p>
        </div>
        <div className="row-actions">
          <button type="button" className="btn" onClick={() => open({ kind: 'add' })}>
            Add public key
          </button>
          <button type="button" className="btn btn-primary" onClick={() => open({ kind: 'create' })}>
            Create API key
          </button>
        </div>
      </div>
      {keys.error ? (
        <ErrorBox message={keys.error} onRetry={keys.reload} title="Could not load the keys" />
      ) : !keys.data ? (
        <Loading what="API keys" />
      ) : keys.data.length === 0 ? (
        <Empty title="No API keys yet">Create one to let a script or another system call the reconciliation API.</Empty>
      ) : (
        <DataTable
          label="API keys"
          columns={columns}
          rows={keys.data}
          rowKey={(k) => k.api_key}
          rowClass={(k) => (k.revoked_at ? 'row-muted' : undefined)}
        />
      )}
      {dialog?.kind === 'create' && <CreateKeyDialog onClose={() => setDialog(undefined)} onCreated={keys.reload} />}
      {dialog?.kind === 'add' && <AddKeyDialog onClose={() => setDialog(undefined)} onAdded={keys.reload} />}
      {dialog?.kind === 'scope' && <ScopeDialog apiKey={dialog.key} onClose={() => setDialog(undefined)} onSaved={keys.reload} />}
      {dialog?.kind === 'revoke' && <RevokeDialog apiKey={dialog.key} onClose={() => setDialog(undefined)} onRevoked={keys.reload} />}
    </section>
  );
}

function ServerSection() {
  const app = useReference((s) => s.app);
  const loadApp = useReference((s) => s.loadApp);
  if (app.error && !app.data)
    return <ErrorBox message={app.error} onRetry={() => loadApp(true)} title="Could not read the service's state" />;
  if (!app.data) return <Loading what="the service's state" />;
  const { api, data_dir, db_file, version, mode } = app.data;
  return (
    <div className="cards-2">
      <section className="card">
        <div className="card-head">
          <h2>Local API server</h2>
          <button type="button" className="btn btn-small" onClick={() => loadApp(true)}>
            Refresh
          </button>
        </div>
        <dl className="kv">
          <dt>Status</dt>
          <dd>
            <Badge>{api.state}</Badge>
            {api.error && <span className="error-text"> {api.error}</span>}
          </dd>
          <dt>Base URL</dt>
          <dd className="with-action">
            {api.base_url ? (
              <>
                <code className="mono" data-testid="api-base-url">
                  {api.base_url}
                </code>
                <CopyButton text={api.base_url} />
              </>
            ) : (
              <span className="muted">not listening</span>
            )}
          </dd>
          <dt>Host</dt>
          <dd className="mono">{api.host ?? '—'}</dd>
          <dt>Port</dt>
          <dd className="mono" data-testid="api-port">
            {api.port ?? '—'}
          </dd>
        </dl>
        <p className="muted small">Loopback only; the port is also written to api.json in the data folder for local tools.</p>
      </section>
      <section className="card">
        <div className="card-head">
          <h2>This app</h2>
        </div>
        <dl className="kv">
          <dt>Data folder</dt>
          <dd className="with-action">
            <code className="mono break" data-testid="data-dir">
              {data_dir}
            </code>
            <CopyButton text={data_dir} />
          </dd>
          <dt>Database</dt>
          <dd className="mono break">{db_file}</dd>
          <dt>Window talks via</dt>
          <dd>{transportKind === 'electron' ? 'IPC (desktop app)' : 'the /app/rpc door (browser mode)'}</dd>
          <dt>Version</dt>
          <dd className="mono">
            {version} · {mode}
          </dd>
        </dl>
      </section>
    </div>
  );
}

const plural = (n: number, one: string, many = `${one}s`) => `${formatCount(n)} ${n === 1 ? one : many}`;

function appliedText(a: RetentionApplied): string {
  if (a.removed.runs + a.removed.items === 0) return 'Nothing to remove: the policy keeps every item stored.';
  const kept =
    a.kept_for_tickets.runs > 0
      ? ` Kept ${plural(a.kept_for_tickets.runs, 'older run')} for ${plural(a.kept_for_tickets.items, 'item')} that opened or touched a ticket.`
      : '';
  const space =
    a.vacuum === 'incremental'
      ? ` The freed pages went back to the disk (${formatBytes(a.db_bytes_before)} before, ${formatBytes(a.db_bytes_after)} now).`
      : ` The file keeps its size: the ${formatBytes(a.store.free_bytes)} free inside it is reused by new runs.`;
  return `Removed ${plural(a.removed.runs, 'run')} and ${plural(a.removed.items, 'item')}.${kept}${space}`;
}

/** A whole number as typed, or the text itself: the service checks it and names the field when it is not one it takes. */
const typedNumber = (text: string): number | string => (/^\s*-?\d+\s*$/.test(text) ? Number(text) : text);

function RetentionSection() {
  const othersChanged = useChangeKey('settings');
  const status = useQuery(`retention:${othersChanged}`, () => call('retention-get', {}));
  const [days, setDays] = useState<string>();
  const [runs, setRuns] = useState<string>();
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string>();
  const [saved, setSaved] = useState(false);
  const [progress, setProgress] = useState<Progress>();
  const [applying, setApplying] = useState(false);
  const [applied, setApplied] = useState<RetentionApplied>();
  const [applyError, setApplyError] = useState<string>();

  if (status.error && !status.data)
    return <ErrorBox message={status.error} onRetry={status.reload} title="Could not read the store's retention" />;
  if (!status.data) return <Loading what="the store's retention" />;
  const s = status.data;
  const daysText = days ?? String(s.policy.days);
  const runsText = runs ?? String(s.policy.runs);
  const changed = daysText !== String(s.policy.days) || runsText !== String(s.policy.runs);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setSaveError(undefined);
    setSaved(false);
    try {
      // Sent as typed: the service refuses a value out of range and names the field.
      await call('retention-set', { days: typedNumber(daysText), runs: typedNumber(runsText) });
      setDays(undefined);
      setRuns(undefined);
      setSaved(true);
      status.reload();
    } catch (err) {
      setSaveError(errorText(err));
    } finally {
      setSaving(false);
    }
  };
  const apply = async () => {
    setApplying(true);
    setApplyError(undefined);
    setApplied(undefined);
    setProgress(undefined);
    try {
      setApplied(await call('retention-apply', {}, { onProgress: setProgress }));
    } catch (err) {
      setApplyError(errorText(err));
    } finally {
      setApplying(false);
      status.reload();
    }
  };

  return (
    <section className="card" aria-labelledby="retention-title">
      <div className="card-head">
        <div>
          <h2 id="retention-title">Data retention</h2>
          <p className="muted">
            Verification runs are kept for the last days and at least the last runs set here, whichever keeps more. An older run keeps only
            the items that opened or touched a ticket, for as long as the ticket exists; a run with none is removed. The service applies the
            policy after it starts and, at most hourly, after new runs.
          </p>
        </div>
        <button type="button" className="btn btn-small" onClick={status.reload}>
          Refresh
        </button>
      </div>
      <div className="stats" role="group" aria-label="Stored runs">
        <Stat label="runs stored" value={s.runs} />
        <Stat label="items stored" value={s.items} />
        <Stat label="runs the policy removes now" value={s.would_remove.runs} tone={s.would_remove.runs > 0 ? 'warn' : undefined} />
        <Stat label="items the policy removes now" value={s.would_remove.items} tone={s.would_remove.items > 0 ? 'warn' : undefined} />
      </div>
      <div className="cards-2 retention">
        <dl className="kv">
          <dt>Store file</dt>
          <dd className="num" data-testid="retention-db-size">
            {formatBytes(s.store.db_bytes)}
          </dd>
          <dt>Write-ahead log</dt>
          <dd className="num">{formatBytes(s.store.wal_bytes)}</dd>
          <dt>Free inside the file</dt>
          <dd>
            <span className="num">{formatBytes(s.store.free_bytes)}</span>{' '}
            <span className="muted small">
              {s.store.auto_vacuum === 'incremental'
                ? 'given back to the disk after each removal'
                : 'reused by new runs; the file shrinks only with a VACUUM, which is never run automatically'}
            </span>
          </dd>
        </dl>
        <form className="form-grid" onSubmit={(e) => void save(e)} aria-label="Retention policy" noValidate>
          <div className="form-row">
            <Field
              label="Keep the runs of the last (days)"
              htmlFor="retention-days"
              hint={`${RETENTION_LIMITS.days.min}–${formatCount(RETENTION_LIMITS.days.max)}; default ${DEFAULT_RETENTION.days}`}
            >
              <input
                id="retention-days"
                type="number"
                inputMode="numeric"
                min={RETENTION_LIMITS.days.min}
                max={RETENTION_LIMITS.days.max}
                value={daysText}
                onChange={(e) => {
                  setDays(e.target.value);
                  setSaved(false);
                }}
              />
            </Field>
            <Field
              label="And at least the last (runs)"
              htmlFor="retention-runs"
              hint={`${RETENTION_LIMITS.runs.min}–${formatCount(RETENTION_LIMITS.runs.max)}; default ${DEFAULT_RETENTION.runs}`}
            >
              <input
                id="retention-runs"
                type="number"
                inputMode="numeric"
                min={RETENTION_LIMITS.runs.min}
                max={RETENTION_LIMITS.runs.max}
                value={runsText}
                onChange={(e) => {
                  setRuns(e.target.value);
                  setSaved(false);
                }}
              />
            </Field>
          </div>
          <div className="form-actions">
            <button type="submit" className="btn btn-primary" disabled={saving || !changed}>
              {saving ? 'Saving…' : 'Save'}
            </button>
            {saved && (
              <span className="muted small" role="status">
                Saved.
              </span>
            )}
          </div>
          {saveError && (
            <p className="error-text" role="alert">
              {saveError}
            </p>
          )}
        </form>
      </div>
      <div className="retention-apply">
        <p data-testid="retention-would-remove">
          {s.would_remove.runs + s.would_remove.items === 0
            ? 'The policy removes nothing now.'
            : `The policy removes ${plural(s.would_remove.runs, 'run')} and ${plural(s.would_remove.items, 'item')} now.`}
          {s.running && !applying && <span className="muted"> A removal is running.</span>}
        </p>
        <button type="button" className="btn" onClick={() => void apply()} disabled={applying}>
          {applying ? 'Applying…' : 'Apply now'}
        </button>
      </div>
      {applying && <ProgressBar done={progress?.done ?? 0} total={progress?.total || undefined} label="Removing" />}
      {applied && (
        <p className="note" role="status" data-testid="retention-result">
          {appliedText(applied)}
        </p>
      )}
      {applyError && (
        <p className="error-text" role="alert">
          {applyError}
        </p>
      )}
    </section>
  );
}

/** Your name: the named local user, recorded as the actor of every ticket event from this window and the CLI. */
function UserSection() {
  const name = useAppUser((s) => s.name);
  const loadError = useAppUser((s) => s.error);
  const load = useAppUser((s) => s.load);
  const save = useAppUser((s) => s.save);
  const [typed, setTyped] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState(false);
  useEffect(() => load(), [load]);
  const text = typed ?? name ?? '';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setSaved(false);
    try {
      await save(text);
      setTyped(undefined);
      setSaved(true);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="user-title">
      <div className="card-head">
        <div>
          <h2 id="user-title">Your name</h2>
          <p className="muted">
            Every ticket you resolve, dismiss or reopen records who did it. The command line acts under the same name.
          </p>
        </div>
      </div>
      {loadError && name === undefined ? (
        <ErrorBox message={loadError} title="Could not read your name" />
      ) : (
        <form className="filters user-form" onSubmit={(e) => void submit(e)} aria-label="Your name">
          <Field
            label="Name"
            htmlFor="user-name"
            hint={name ? `Events now name ${name}.` : 'Not set yet: events say "the app" or "the command line".'}
          >
            <input
              id="user-name"
              value={text}
              onChange={(e) => {
                setTyped(e.target.value);
                setSaved(false);
              }}
              maxLength={80}
              autoComplete="name"
            />
          </Field>
          <div className="filters-actions">
            <button type="submit" className="btn btn-primary" disabled={busy || text.trim() === '' || text.trim() === name}>
              {busy ? 'Saving…' : 'Save name'}
            </button>
            {saved && (
              <span className="muted small" role="status">
                Saved.
              </span>
            )}
          </div>
          {error && (
            <p className="error-text" role="alert">
              {error}
            </p>
          )}
        </form>
      )}
    </section>
  );
}

const THEME_OPTIONS: { key: Theme; label: string }[] = [
  { key: 'system', label: 'System' },
  { key: 'light', label: 'Light' },
  { key: 'dark', label: 'Dark' },
];

function AppearanceSection() {
  const [theme, setTheme] = useState(storedTheme);
  const choose = (next: Theme) => {
    chooseTheme(next);
    setTheme(next);
  };
  return (
    <section className="card" aria-labelledby="appearance-title">
      <div className="card-head">
        <div>
          <h2 id="appearance-title">Appearance</h2>
          <p className="muted">System follows the light or dark setting of this computer; the choice is kept for this window.</p>
        </div>
        <Segmented label="Theme" options={THEME_OPTIONS} value={theme} onChange={choose} />
      </div>
    </section>
  );
}

export function SettingsScreen() {
  return (
    <div className="screen">
      <PageHeader
        title="Settings"
        subtitle="The local API server, the keys that may call it, where the data lives, how long it is kept, and how the window looks."
      />
      <UserSection />
      <ServerSection />
      <KeysSection />
      <RetentionSection />
      <AppearanceSection />
    </div>
  );
}
