import { Field } from '../../components/ui';
import { useRunWizard } from './store';

/**
 * Two-way reconciliation's controls: whether the ledger side is checked, and its period (whole
 * days in UTC, both inclusive). Records of the wallet created in the period that no claim finds
 * are reported as not in the books.
 */
export function PeriodFields({ disabled }: { disabled: boolean }) {
  const w = useRunWizard();
  return (
    <>
      <Field label="Check both ways" htmlFor="rc-two-way" hint="Also report ledger records of the period the books do not mention">
        <input
          id="rc-two-way"
          type="checkbox"
          checked={w.twoWay}
          onChange={(e) => w.patch({ twoWay: e.target.checked })}
          disabled={disabled}
        />
      </Field>
      {w.twoWay && (
        <div className="period-fields">
          <Field label="From (UTC)" htmlFor="rc-from">
            <input
              id="rc-from"
              type="date"
              value={w.periodFrom}
              onChange={(e) => w.patch({ periodFrom: e.target.value })}
              disabled={disabled}
            />
          </Field>
          <Field label="To (UTC)" htmlFor="rc-to" hint="Both days included">
            <input id="rc-to" type="date" value={w.periodTo} onChange={(e) => w.patch({ periodTo: e.target.value })} disabled={disabled} />
          </Field>
        </div>
      )}
    </>
  );
}
