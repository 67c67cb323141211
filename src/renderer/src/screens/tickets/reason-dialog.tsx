import { useState } from 'react';
import type { TicketStatus } from '../../../../shared/tickets';
import { Field, FormDialog } from '../../components/ui';
import { formatCount } from '../../lib/format';
import { useAppUser } from '../../stores/user';

const VERB: Record<TicketStatus, string> = { Resolved: 'Resolve', Dismissed: 'Dismiss', Pending: 'Reopen' };

export const ticketsWord = (n: number): string => `${formatCount(n)} ticket${n === 1 ? '' : 's'}`;

/** What the change does, in the words of the dialog: "3 tickets go from Pending to Dismissed". */
function changeSentence(count: number, from: readonly TicketStatus[], to: TicketStatus): string {
  const origin = from.length === 1 ? `from ${from[0]} ` : '';
  return `${ticketsWord(count)} ${count === 1 ? 'goes' : 'go'} ${origin}to ${to}.`;
}

/**
 * Resolve, dismiss or reopen one ticket or many, with a reason (required unless reopening). When
 * no one is named yet, the dialog asks for the name first, once: every event records it.
 */
export function ReasonDialog({
  count,
  from,
  to,
  onClose,
  apply,
  warning,
}: {
  count: number;
  from: readonly TicketStatus[];
  to: TicketStatus;
  onClose: () => void;
  /** Makes the change with the reason given; the dialog closes when it is done. */
  apply: (note: string) => Promise<void>;
  /** Someone else changed the ticket while the dialog was open: said above the reason. */
  warning?: string;
}) {
  const user = useAppUser((s) => s.name);
  const save = useAppUser((s) => s.save);
  // Asked only when no one is named: once named (here or in Settings) the field is gone for good.
  const [askName] = useState(() => !user);
  const [name, setName] = useState('');
  const [note, setNote] = useState('');
  const required = to !== 'Pending';
  const verb = VERB[to];
  return (
    <FormDialog
      id="ticket-reason"
      title={`${verb} ${ticketsWord(count)}`}
      submitLabel={`${verb} ${ticketsWord(count)}`}
      busyLabel={`${verb.replace(/e$/, '')}ing…`}
      canSubmit={(!required || note.trim() !== '') && (!askName || name.trim() !== '')}
      onClose={onClose}
      action={async () => {
        if (askName) await save(name);
        await apply(note.trim());
        onClose();
      }}
    >
      <p data-testid="reason-change">{changeSentence(count, from, to)}</p>
      {warning && (
        <p className="warning" role="alert" data-testid="reason-changed-meanwhile">
          {warning}
        </p>
      )}
      {askName && (
        <Field
          label="Your name"
          htmlFor="reason-user"
          hint="Asked once: every ticket event records who acted. Change it later in Settings."
        >
          <input id="reason-user" value={name} onChange={(e) => setName(e.target.value)} maxLength={80} autoFocus autoComplete="name" />
        </Field>
      )}
      <Field
        label={required ? 'Reason' : 'Reason (optional)'}
        htmlFor="reason-note"
        hint={`Kept in ${count === 1 ? 'the ticket’s' : 'each ticket’s'} history${user ? `, by ${user}` : ''}.`}
      >
        <textarea
          id="reason-note"
          rows={3}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          maxLength={2000}
          required={required}
          autoFocus={!askName}
          placeholder={required ? 'What you checked, who agreed, what was corrected…' : 'Why it needs another look'}
        />
      </Field>
    </FormDialog>
  );
}
