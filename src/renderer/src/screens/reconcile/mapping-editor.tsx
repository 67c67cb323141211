import type { z } from 'zod';
import {
  BOOKS_AMOUNT_SIGNS,
  BOOKS_KEPT_FIELDS,
  BOOKS_TRANSLATED_FIELDS,
  FLAG_FIELDS,
  IDENTIFIER_FIELDS,
  type BooksColumnField,
  type BooksMapping,
  type BooksReadAs,
  type BooksTranslatedField,
  type VerifyField,
} from '../../../../shared/reconcile';
import { LEDGER_STATUSES, LEDGER_TYPES } from '../../../../shared/ledger';
import { ColumnSelect, ConstantInput, SampleCell, sampleOf } from '../../components/mapping';
import { Field } from '../../components/ui';

/*
 * A books mapping as the user edits it: which column each claim field is read from (or a constant),
 * the books' own words translated, and how the books write amounts and dates. The New run step
 * edits it against a file's first rows; a saved mapping is edited against its layout's columns.
 */

export type MappingIn = z.input<typeof BooksMapping>;

/** The claim's fields, with the In/Out pair after amount, then the columns kept beside it. */
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

/** The mapping with a column for a field (or none: ''). */
export function withColumn(m: MappingIn, field: BooksColumnField, header: string): MappingIn {
  const columns = { ...(m.columns ?? {}) };
  if (header) columns[field] = header;
  else delete columns[field];
  return { ...m, columns };
}

/** The mapping with a books value translated (or no longer: ''). */
export function withTranslation(m: MappingIn, field: BooksTranslatedField, from: string, to: string): MappingIn {
  const translations = { ...(m.translations ?? {}) };
  const table = { ...(translations[field] ?? {}) };
  if (to.trim()) table[from] = to.trim();
  else delete table[from];
  if (Object.keys(table).length) translations[field] = table;
  else delete translations[field];
  return { ...m, translations };
}

/** The mapping with a constant for a field (or none: ''). */
export function withConstant(m: MappingIn, field: VerifyField, value: string): MappingIn {
  const constants = { ...(m.constants ?? {}) };
  if (value) constants[field] = value;
  else delete constants[field];
  return { ...m, constants };
}

interface EditorProps {
  /** The books' columns. */
  headers: string[];
  /** The file's first rows, keyed by column (none when a saved mapping is edited without a file). */
  sample: Record<string, string>[];
  mapping: MappingIn;
  onChange: (m: MappingIn) => void;
  disabled: boolean;
}

/** Field by field: the books column it is read from, or a constant, with a sample of the column. */
export function MappingTable({ headers, sample, mapping, onChange, disabled }: EditorProps) {
  const columns = mapping.columns ?? {};
  const constants = mapping.constants ?? {};
  return (
    <table className="table mapping" aria-label="Books column mapping">
      <thead>
        <tr>
          <th scope="col">Verification field</th>
          <th scope="col">Books column</th>
          <th scope="col">or a constant</th>
          {sample.length > 0 && <th scope="col">Sample</th>}
        </tr>
      </thead>
      <tbody>
        {FIELDS.map((f) => {
          const header = columns[f];
          return (
            <tr key={f} className={header || (!PAIR.has(f) && !KEPT.has(f) && constants[f as VerifyField]) ? 'mapped' : undefined}>
              <th scope="row">
                <span className="mono">{f}</span>
                {HELP[f] && <div className="muted small">{HELP[f]}</div>}
              </th>
              <td>
                <ColumnSelect
                  field={f}
                  headers={headers}
                  value={header}
                  emptyLabel={PAIR.has(f) ? '— no In/Out pair —' : KEPT.has(f) ? '— none —' : '— not compared —'}
                  disabled={disabled}
                  onChange={(h) => onChange(withColumn(mapping, f, h))}
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
                    value={constants[f as VerifyField]}
                    disabled={disabled}
                    onChange={(v) => onChange(withConstant(mapping, f as VerifyField, v))}
                  />
                )}
              </td>
              {sample.length > 0 && <SampleCell samples={sampleOf(sample, header)} />}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/**
 * Value translations: the values of each translatable field's column in the first rows (and those
 * the mapping already translates), each with the claim value it stands for ("Receive" is a
 * Deposit). Type and status choose among their words; chain and token take any text.
 */
export function Translations({ sample, mapping, onChange, disabled }: Omit<EditorProps, 'headers'>) {
  const tables = BOOKS_TRANSLATED_FIELDS.flatMap((field) => {
    const column = mapping.columns?.[field];
    if (!column) return [];
    const table = mapping.translations?.[field] ?? {};
    const words = WORDS[field];
    const seen = new Map<string, string>();
    for (const r of sample) {
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
                const set = (to: string) => onChange(withTranslation(mapping, field, hit?.[0] ?? v, to));
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
                          disabled={disabled}
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
                          disabled={disabled}
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

/** How the books write amounts and times: sign, separators, date order, zone. `readAs`: what the file decided. */
export function FormatFields({
  mapping,
  onChange,
  disabled,
  readAs,
  idPrefix = 'rc',
}: {
  mapping: MappingIn;
  onChange: (m: MappingIn) => void;
  disabled: boolean;
  readAs?: BooksReadAs;
  idPrefix?: string;
}) {
  const patch = (p: Partial<MappingIn>) => onChange({ ...mapping, ...p });
  const id = (name: string) => `${idPrefix}-${name}`;
  return (
    <>
      <Field label="Amount column" htmlFor={id('sign')} hint="A signed amount gives the type by its sign">
        <select
          id={id('sign')}
          value={mapping.amount_sign ?? ''}
          onChange={(e) => patch({ amount_sign: (e.target.value || undefined) as BooksMapping['amount_sign'] })}
          disabled={disabled}
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
        htmlFor={id('decimal')}
        hint={
          (mapping.decimal_separator ?? '.') === 'auto'
            ? readAs?.decimal_separator
              ? `From the file: ${readAs.decimal_separator === ',' ? 'decimal comma' : 'decimal point'}`
              : 'From the file'
            : undefined
        }
      >
        <select
          id={id('decimal')}
          value={mapping.decimal_separator ?? '.'}
          onChange={(e) => patch({ decimal_separator: e.target.value as BooksMapping['decimal_separator'] })}
          disabled={disabled}
        >
          <option value="auto">from the file</option>
          <option value=".">. (1234.56)</option>
          <option value=",">, (1234,56)</option>
        </select>
      </Field>
      <Field label="Thousands separator in amounts" htmlFor={id('thousands')}>
        <select
          id={id('thousands')}
          value={mapping.thousands_separator ?? ''}
          onChange={(e) => patch({ thousands_separator: e.target.value as BooksMapping['thousands_separator'] })}
          disabled={disabled}
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
        htmlFor={id('date-order')}
        hint={
          (mapping.date_order ?? 'auto') === 'auto' && readAs?.date_order
            ? `From the file: ${readAs.date_order === 'day_first' ? 'day first' : 'month first'}`
            : undefined
        }
      >
        <select
          id={id('date-order')}
          value={mapping.date_order ?? 'auto'}
          onChange={(e) => patch({ date_order: e.target.value as BooksMapping['date_order'] })}
          disabled={disabled}
        >
          <option value="auto">from the file</option>
          <option value="day_first">day first (31/01/2026)</option>
          <option value="month_first">month first (01/31/2026)</option>
        </select>
      </Field>
      <Field label="Time zone of times without one" htmlFor={id('zone')} hint="An IANA name (Europe/Berlin); empty: the UTC offset below">
        <input
          id={id('zone')}
          className="mono"
          value={mapping.time_zone ?? ''}
          placeholder="UTC offset"
          onChange={(e) => patch({ time_zone: e.target.value.trim() || undefined })}
          disabled={disabled}
        />
      </Field>
      <Field label="UTC offset of times without a zone" htmlFor={id('offset')}>
        <input
          id={id('offset')}
          className="mono"
          value={mapping.utc_offset ?? '+00:00'}
          onChange={(e) => patch({ utc_offset: e.target.value })}
          disabled={disabled}
        />
      </Field>
    </>
  );
}
