import type { TicketStatus } from '../../../shared/tickets';

/** Pending goes to Resolved or Dismissed; either comes back to Pending (a reopen). */
const ALLOWED: Record<TicketStatus, readonly TicketStatus[]> = {
  Pending: ['Resolved', 'Dismissed'],
  Resolved: ['Pending'],
  Dismissed: ['Pending'],
};

/** Why a status change is not allowed, or null when it is. */
export function transitionError(from: TicketStatus, to: TicketStatus): string | null {
  if (from === to) return `the ticket is already ${from}`;
  if (!ALLOWED[from].includes(to)) return `a ${from} ticket can only go to ${ALLOWED[from].join(' or ')}`;
  return null;
}

/** Who acted, as events record it: the door, and for a signed request the key. */
export const actorOf = (meta: { actor: string; apiKey?: string }): string => (meta.apiKey ? `${meta.actor}:${meta.apiKey}` : meta.actor);
