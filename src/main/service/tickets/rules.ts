import { actorLabel } from '../../../shared/actors';
import type { ServiceContext } from '../context';
import type { TicketStatus } from '../../../shared/tickets';
import type { TicketNow } from './repository';

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
  return ctx.user.name || meta.actor;
}

/** What a change to each status is called: "Anna resolved it", "3 tickets reopened". */
export const DONE: Record<TicketStatus, string> = { Resolved: 'resolved', Dismissed: 'dismissed', Pending: 'reopened' };

/** A moment as the refusals say it: 2026-01-02 03:04:05 UTC. */
const utc = (ms: number): string =>
  new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');

/** Who last changed a ticket, to what, and when: "Anna resolved it at 2026-01-02 03:04:05 UTC; it is Resolved now". */
function lastChangeText(t: TicketNow): string {
  const now = `it is ${t.status} now`;
  const e = t.last;
  if (e === null) return now;
  const what =
    e.kind === 'status' && e.to !== null
      ? `${actorLabel(e.actor)} ${DONE[e.to]} it`
      : e.kind === 'updated'
        ? `a newer claim updated it (${actorLabel(e.actor)})`
        : `${actorLabel(e.actor)} opened it`;
  return `${what} at ${utc(e.at)}; ${now}`;
}

/** How many tickets a refusal names one by one; the rest are counted. */
const NAMED = 5;

/**
 * The refusal of a transition whose tickets changed since the caller saw them: which, who changed
 * each, to what and when; nothing was written. `total`: how many the call asked to change.
 */
export function changedSinceText(changed: readonly TicketNow[], total: number): string {
  // One ticket asked for is the one the caller has in view: its id would say nothing more.
  const each = changed.slice(0, NAMED).map((t) => (total === 1 ? lastChangeText(t) : `ticket ${t.ticket_id}: ${lastChangeText(t)}`));
  if (changed.length > NAMED) each.push(`and ${changed.length - NAMED} more`);
  const head =
    total === 1
      ? 'the ticket changed since you saw it, so it was not changed'
      : `${changed.length} of ${total} tickets changed since you saw them, so none was changed`;
  return `${head}: ${each.join('; ')}. Look again and decide`;
}
