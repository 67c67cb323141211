import type { ServiceContext } from '../context';
import { userName } from '../db/user';
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

/**
 * Who acted, as events record it: for a signed request the door and the key (`api:<key>`); in the
 * desktop app and the CLI the named local user (Settings), or the door until one is named.
 */
export function actorOf(ctx: ServiceContext, meta: { actor: string; apiKey?: string }): string {
  if (meta.apiKey) return `${meta.actor}:${meta.apiKey}`;
  if (meta.actor === 'api') return meta.actor;
  return userName(ctx.db) || meta.actor;
}
