/** The cells a column-mapping table shares: which column a field is read from, and a sample of it. */

/** Up to three non-empty values of a column from the file's first rows. */
export function sampleOf(sample: Record<string, string>[], header: string | undefined): string[] {
  if (!header) return [];
  return sample
    .map((r) => r[header] ?? '')
    .filter((v) => v !== '')
    .slice(0, 3);
}

export function ColumnSelect(props: {
  field: string;
  headers: string[];
  value: string | undefined;
  emptyLabel: string;
  disabled: boolean;
  onChange: (header: string) => void;
}) {
  return (
    <select
      aria-label={`Column for ${props.field}`}
      value={props.value ?? ''}
      onChange={(e) => props.onChange(e.target.value)}
      disabled={props.disabled}
    >
      <option value="">{props.emptyLabel}</option>
      {props.headers.map((h) => (
        <option key={h} value={h}>
          {h}
        </option>
      ))}
    </select>
  );
}

export function ConstantInput(props: { field: string; value: string | undefined; disabled: boolean; onChange: (value: string) => void }) {
  return (
    <input
      aria-label={`Constant for ${props.field}`}
      className="mono"
      value={props.value ?? ''}
      onChange={(e) => props.onChange(e.target.value)}
      placeholder="—"
      disabled={props.disabled}
    />
  );
}

export function SampleCell({ samples, whenEmpty }: { samples: string[]; whenEmpty?: string }) {
  return (
    <td className="samples">
      {samples.length ? (
        samples.map((v, i) => (
          <span key={i} className="sample mono" title={v}>
            {v}
          </span>
        ))
      ) : (
        <span className="muted">{whenEmpty ?? ''}</span>
      )}
    </td>
  );
}
