import { useEffect, useRef, useState, type ReactNode } from 'react';
import { errorText } from '../api';
import { labelOf } from '../lib/fields';
import { formatCount, groupThousands, splitAmount } from '../lib/format';
import { Icon } from './icons';

export function Spinner({ label = 'Loading' }: { label?: string }) {
  return <span className="spinner" role="status" aria-label={label} />;
}

export function Loading({ what }: { what: string }) {
  return (
    <div className="state state-loading">
      <Spinner /> <span>Loading {what}…</span>
    </div>
  );
}

export function ErrorBox({ message, onRetry, title = 'Something went wrong' }: { message: string; onRetry?: () => void; title?: string }) {
  return (
    <div className="state state-error" role="alert">
      <div>
        <strong>{title}</strong>
        <p>{message}</p>
      </div>
      {onRetry && (
        <button type="button" className="btn" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <strong>{title}</strong>
      {children && <div className="state-body">{children}</div>}
    </div>
  );
}

/**
 * A decimal amount, exactly as stored, with its point lined up in a right-aligned column: `fracCh`
 * (fractionWidth of the column's amounts) makes every fraction as wide as the column's widest.
 */
export function Amount({ value, className, fracCh }: { value: string | null | undefined; className?: string; fracCh?: number }) {
  const fracStyle = fracCh === undefined ? undefined : { minWidth: `${fracCh}ch` };
  if (value === null || value === undefined || value === '') {
    // The dash stands where the digits before the point would, so it lines up with the amounts around it.
    return (
      <span className={className ? `amount muted ${className}` : 'amount muted'} aria-label="empty">
        <span className="amount-int">—</span>
        <span className="amount-frac" style={fracStyle} />
      </span>
    );
  }
  const { int, frac } = splitAmount(value);
  return (
    <span className={className ? `amount ${className}` : 'amount'} title={value}>
      <span className="amount-int">{groupThousands(int)}</span>
      <span className="amount-frac" style={fracStyle}>
        {frac}
      </span>
    </span>
  );
}

const STATUS_TONE: Record<string, string> = {
  Completed: 'good',
  Resolved: 'good',
  running: 'good',
  Matched: 'good',
  Active: 'good',
  Pending: 'warn',
  Confirming: 'info',
  Mismatched: 'bad',
  Failed: 'bad',
  Rejected: 'bad',
  failed: 'bad',
  Revoked: 'muted',
  Dismissed: 'muted',
  stopped: 'muted',
  'Not in ledger': 'bad',
  'Not in books': 'bad',
  Duplicate: 'warn',
};

export function Badge({ children, tone }: { children: string; tone?: string }) {
  return <span className={`badge badge-${tone ?? STATUS_TONE[children] ?? 'neutral'}`}>{children}</span>;
}

export function ProgressBar({ done, total, label }: { done: number; total?: number; label: string }) {
  const pct = total ? Math.min(100, Math.round((done / total) * 100)) : undefined;
  return (
    <div className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
      <div
        className={pct === undefined ? 'progress-bar progress-indeterminate' : 'progress-bar'}
        style={{ width: pct === undefined ? '30%' : `${pct}%` }}
      />
    </div>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const copy = async () => {
    window.clearTimeout(timer.current);
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Refused (no permission, the window not focused, no clipboard at all): said, never swallowed;
      // the text stays shown and selectable. It stays said until the next try.
      setState('failed');
      return;
    }
    setState('copied');
    timer.current = window.setTimeout(() => setState('idle'), 1500);
  };
  return (
    <>
      <button type="button" className="btn btn-small" onClick={copy} aria-label={`${label}: ${text.length > 40 ? 'value' : text}`}>
        <Icon name={state === 'copied' ? 'check' : 'copy'} size={14} /> {state === 'copied' ? 'Copied' : label}
      </button>
      {state === 'failed' && (
        <span className="error-text" role="alert">
          Not copied: the clipboard refused. Select the text and copy it with Ctrl+C (⌘C on a Mac).
        </span>
      )}
    </>
  );
}

export interface TabDef<K extends string> {
  key: K;
  label: string;
  count?: number;
}

export function Tabs<K extends string>({
  tabs,
  active,
  onChange,
  label,
}: {
  tabs: TabDef<K>[];
  active: K;
  onChange: (k: K) => void;
  label: string;
}) {
  return (
    <div className="tabs" role="tablist" aria-label={label}>
      {tabs.map((t) => (
        <button
          key={t.key}
          type="button"
          role="tab"
          aria-selected={t.key === active}
          className={t.key === active ? 'tab tab-active' : 'tab'}
          onClick={() => onChange(t.key)}
        >
          {t.label}
          {t.count !== undefined && <span className="tab-count">{formatCount(t.count)}</span>}
        </button>
      ))}
    </div>
  );
}

export function Segmented<K extends string>({
  options,
  value,
  onChange,
  label,
}: {
  options: { key: K; label: string }[];
  value: K;
  onChange: (k: K) => void;
  label: string;
}) {
  return (
    <div className="segmented" role="radiogroup" aria-label={label}>
      {options.map((o) => (
        <button
          key={o.key}
          type="button"
          role="radio"
          aria-checked={o.key === value}
          className={o.key === value ? 'seg seg-on' : 'seg'}
          onClick={() => onChange(o.key)}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}

/** Page N of M with previous/next, and the range shown, for lists the service pages. */
export function Pager({
  page,
  pageSize,
  total,
  onPage,
  busy,
}: {
  page: number;
  pageSize: number;
  total: number;
  onPage: (p: number) => void;
  busy?: boolean;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const first = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const last = Math.min(total, page * pageSize);
  return (
    <nav className="pager" aria-label="Pages">
      <span className="pager-range">
        {total === 0
          ? 'Nothing to show'
          : first > last
            ? `page ${page} is past the end of ${formatCount(total)}`
            : `${formatCount(first)}–${formatCount(last)} of ${formatCount(total)}`}
      </span>
      <button
        type="button"
        className="btn btn-small"
        disabled={busy || page <= 1}
        onClick={() => onPage(page - 1)}
        aria-label="Previous page"
      >
        ‹ Prev
      </button>
      <span className="pager-page">
        Page {formatCount(page)} / {formatCount(pages)}
      </span>
      <button
        type="button"
        className="btn btn-small"
        disabled={busy || page >= pages}
        onClick={() => onPage(page + 1)}
        aria-label="Next page"
      >
        Next ›
      </button>
    </nav>
  );
}

export function Field({ label, hint, children, htmlFor }: { label: ReactNode; hint?: ReactNode; children: ReactNode; htmlFor?: string }) {
  return (
    <div className="field">
      <label htmlFor={htmlFor}>{label}</label>
      {children}
      {hint && <div className="field-hint">{hint}</div>}
    </div>
  );
}

export function PageHeader({ title, subtitle, actions }: { title: string; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle && <p className="page-subtitle">{subtitle}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </header>
  );
}

/**
 * A modal dialog: focus moves in, Escape closes, the page behind is inert, and focus goes back to what opened it.
 * `dismissable={false}`: neither Escape nor a close button ends it; only its own footer's action does.
 */
export function Dialog({
  title,
  onClose,
  children,
  footer,
  dismissable = true,
  wide = false,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  dismissable?: boolean;
  /** For tables of several columns (an import's rejected rows): as wide as the window allows, up to 1040 px. */
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // Taken while rendering, before an autoFocus field inside takes the focus.
  const [opener] = useState(() => (document.activeElement instanceof HTMLElement ? document.activeElement : null));
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    // The dialog leaves the page without close(), so the browser does not hand focus back by itself.
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, [opener]);
  return (
    <dialog
      ref={ref}
      className={wide ? 'dialog dialog-wide' : 'dialog'}
      aria-label={title}
      onCancel={(e) => {
        e.preventDefault();
        if (dismissable) onClose();
      }}
      onClose={(e) => {
        // The browser closes a modal itself on a repeated Escape (its cancel cannot always be refused): open it again.
        if (!dismissable && !e.currentTarget.open) e.currentTarget.showModal();
      }}
    >
      <header className="dialog-header">
        <h2>{title}</h2>
        {dismissable && (
          <button type="button" className="btn btn-ghost btn-icon" onClick={onClose} aria-label="Close">
            <Icon name="close" />
          </button>
        )}
      </header>
      <div className="dialog-body">{children}</div>
      {footer && <footer className="dialog-footer">{footer}</footer>}
    </dialog>
  );
}

/** A value the record or catalogue leaves empty ("" or null): a muted dash. */
export function NoValue() {
  return (
    <span className="muted" aria-label="empty">
      —
    </span>
  );
}

/**
 * A field as the screens name it: the label for people, and under it the contract's name of the
 * field (the name on the wire, in the API document and in files), so the two are never confused.
 */
export function FieldName({ field, label }: { field: string; label?: string }) {
  const text = label ?? labelOf(field);
  return (
    <span className="fname" title={field}>
      <span className="fname-label">{text}</span>
      {text !== field && <code className="fname-key">{field}</code>}
    </span>
  );
}

/** An on/off switch for a boolean the user may change in place; its column or label says what it switches. */
export function Switch({
  checked,
  onChange,
  label,
  disabled,
}: {
  checked: boolean;
  onChange: (next: boolean) => void;
  label: string;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      aria-label={label}
      title={`${label}: ${checked}`}
      className={checked ? 'switch switch-on' : 'switch'}
      disabled={disabled}
      onClick={() => onChange(!checked)}
    >
      <span className="switch-track" aria-hidden="true">
        <span className="switch-thumb" />
      </span>
    </button>
  );
}

/** A dialog around one form: Cancel, a submit button that shows it is busy, and the failure under the fields. */
export function FormDialog(props: {
  id: string;
  title: string;
  submitLabel: string;
  busyLabel?: string;
  canSubmit: boolean;
  onClose: () => void;
  action: () => Promise<void>;
  children: ReactNode;
  /** An action of another kind, at the footer's start (apart from Cancel and the submit button). */
  footerStart?: ReactNode;
  /** A form with a table in it: the dialog as wide as the window allows. */
  wide?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await props.action();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      title={props.title}
      onClose={props.onClose}
      wide={props.wide}
      footer={
        <>
          {props.footerStart && <span className="dialog-footer-start">{props.footerStart}</span>}
          <button type="button" className="btn btn-ghost" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" form={props.id} className="btn btn-primary" disabled={busy || !props.canSubmit}>
            {busy ? (props.busyLabel ?? props.submitLabel) : props.submitLabel}
          </button>
        </>
      }
    >
      <form
        id={props.id}
        className="form-grid"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        {props.children}
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
      </form>
    </Dialog>
  );
}

export function Stat({
  label,
  value,
  tone,
  onClick,
  active,
}: {
  label: string;
  value: number;
  tone?: string;
  onClick?: () => void;
  active?: boolean;
}) {
  const body = (
    <>
      <span className="stat-value num">{formatCount(value)}</span>
      <span className="stat-label">{label}</span>
    </>
  );
  const cls = `stat stat-${tone ?? 'neutral'}${active ? ' stat-active' : ''}`;
  return onClick ? (
    <button type="button" className={cls} onClick={onClick} aria-pressed={active}>
      {body}
    </button>
  ) : (
    <div className={cls}>{body}</div>
  );
}
